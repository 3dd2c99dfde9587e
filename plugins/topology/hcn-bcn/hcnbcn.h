/* hcnbcn.h — HCN and BCN (Guo et al., IEEE TC 2013), shared by the hcn and
 * bcn plugins: the wiring, the counts, and the papers' routings FdimRouting
 * (within one HCN) and BdimRouting (across the copies of a BCN). hcn.c and
 * bcn.c only declare their parameters and call hcnbcn_create(). */
#ifndef INSEE_PLUGIN_HCNBCN_H
#define INSEE_PLUGIN_HCNBCN_H

#include "srvnet.h"

/* `c` > `h` builds HCN(a + b, h) alone (one copy, followers' second port
   unplugged); c <= h builds BCN(a, b, h, c) with connection rule `r`
   (0: DCell's, 1: Kliegl et al.'s beta-DCell). NULL with err set (naming
   `who` and its parameters) on a bad size or out of memory. */
void *hcnbcn_create(const char *who, uint32_t a, uint32_t b, uint32_t h, uint32_t c,
                    uint32_t r, double table_mb, insee_error *err);
void hcnbcn_destroy(void *self);
uint32_t hcnbcn_paths(void *self, uint32_t src, uint32_t dst, uint32_t salt,
                      void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                      void *ctx);

#define HCNBCN_VTABLE(create_fn) SRVNET_VTABLE(create_fn, hcnbcn_destroy, hcnbcn_paths)

#endif
