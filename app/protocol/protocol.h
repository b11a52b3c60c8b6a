#pragma once
// The whole protocol of airlockd: names, enums and every payload.
#include "protocol/egress.h"
#include "protocol/enums.h"
#include "protocol/events.h"
#include "protocol/images.h"
#include "protocol/jsonfields.h"
#include "protocol/names.h"
#include "protocol/policies.h"
#include "protocol/ports.h"
#include "protocol/sandbox.h"
#include "protocol/snapshots.h"
#include "protocol/status.h"
#include "protocol/vault.h"
