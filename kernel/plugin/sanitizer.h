/* kernel/plugin/sanitizer.h — INSEE_ASAN is defined when this file is
 * compiled under AddressSanitizer (gcc's and clang's spellings), for the few
 * places where the loader must behave differently there. */
#ifndef INSEE_KERNEL_SANITIZER_H
#define INSEE_KERNEL_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define INSEE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INSEE_ASAN 1
#endif
#endif

#endif
