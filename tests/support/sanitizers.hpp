#pragma once
// Whether this test binary was built with AddressSanitizer (build-asan/), for
// the few tests whose subject ASan changes: freed memory kept in quarantine,
// every load checked against shadow memory. GCC says __SANITIZE_ADDRESS__;
// clang 14 says __has_feature, which GCC 12 cannot parse in the same #if.
#if defined(__SANITIZE_ADDRESS__)
#define MOESWEEP_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MOESWEEP_TEST_ASAN 1
#endif
#endif

namespace moesweep::test {
#ifdef MOESWEEP_TEST_ASAN
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
}  // namespace moesweep::test
