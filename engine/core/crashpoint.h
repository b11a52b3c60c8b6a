#pragma once
// Fault points for the crash tests: airlockd started with AIRLOCK_TEST_CRASH_AT=<step> dies
// (SIGKILL, no cleanup of any kind) when it reaches crashPoint("<step>"), so a test can check
// what the next airlockd makes of the half-done work. Only test builds (AIRLOCK_BUILD_TESTS)
// compile the check in; elsewhere crashPoint does nothing and never reads the environment.
namespace airlock {

// `step` names the operation and the side effect just made durable, e.g. "vault:rekeyed".
void crashPoint(const char *step);

} // namespace airlock
