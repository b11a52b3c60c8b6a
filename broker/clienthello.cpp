#include "clienthello.h"

namespace airlock::tls {

ClientHello parseClientHello(std::span<const char> stream)
{
    ClientHello h;
    h.status = stream.empty() ? ClientHello::Status::NeedMore : ClientHello::Status::NotTls;
    h.needed = 5;
    return h;
}

} // namespace airlock::tls
