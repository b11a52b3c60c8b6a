#pragma once
#include <QtGlobal>

// This process's resident set size (VmRSS) in KiB, -1 if /proc cannot tell: what the memory
// bounds of the views and their benchmarks are stated in.
qint64 residentKiB();
// The same of process `pid` (a daemon under test).
qint64 residentKiB(qint64 pid);
