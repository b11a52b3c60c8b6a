#pragma once
#include "core/result.h"

namespace airlock {

// One airlockd per data directory: an flock() the kernel releases when the holder dies,
// so a SIGKILLed daemon never leaves a lock that blocks its successor.
class InstanceLock {
public:
    InstanceLock() = default;
    ~InstanceLock();
    InstanceLock(const InstanceLock &) = delete;
    InstanceLock &operator=(const InstanceLock &) = delete;

    Status acquire(const QString &path);

private:
    int m_fd = -1;
};

} // namespace airlock
