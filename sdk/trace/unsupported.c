/* libinsee-trace: the calls whose messages the capture cannot write
 * (unsupported.def): passed through, counted, and named with their counts
 * at the end of the capture, which marks the trace incomplete. */
#include "capture.h"

#define X(group, name, params, args)                                                        \
    int name params                                                                         \
    {                                                                                       \
        cap_enter(C_##name);                                                                \
        int rc = P##name args;                                                              \
        cap_leave();                                                                        \
        return rc;                                                                          \
    }
#include "unsupported.def"
