/* kernel/flow/share.h — how the dynamic engine shares link bandwidth among
 * the flows that cross a link (docs/flow.md §5).
 *
 * Contract
 * --------
 * The dynamic engine creates one insee_share over every directed link with
 * its capacity (bytes per second), then adds a flow when it starts (its
 * links and traffic class) and removes it when it ends. Adding and removing
 * only mark links; insee_share_update() then gives new rates to the flows
 * whose rate can have changed, and tells the caller of each through
 * `changed`. Many flows may start and end between two updates: the engine
 * updates once per instant, not once per flow.
 *
 * Rules (insee_share_rule):
 *  - MAXMIN: max-min fairness by progressive filling: every flow's rate
 *    rises at the same pace until a link it crosses is full; then it stays.
 *    No flow can go faster without slowing a flow of lower or equal rate.
 *    A change can move any flow connected to it through shared links, so
 *    update() refills exactly that connected component.
 *  - EQUAL: INRFlow's rule: a flow runs at the minimum over its links of
 *    capacity / flows on the link; capacity a flow cannot use stays unused.
 *    Only the flows on links whose count changed are recomputed.
 * Traffic classes (insee_share_policy): NP ignores them; FP fills the
 * application flows first and gives I/O flows what is left; BA gives each
 * class `app_share` (application) or 1 - app_share (I/O) of a link both
 * classes cross, and the whole link to a class alone on it.
 *
 * Flows are numbered by the share (ids are reused once removed); the
 * share copies the links it is given and borrows the capacities. Not
 * thread-safe.
 */
#ifndef INSEE_KERNEL_FLOW_SHARE_H
#define INSEE_KERNEL_FLOW_SHARE_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef enum { INSEE_SHARE_MAXMIN, INSEE_SHARE_EQUAL } insee_share_rule;
typedef enum { INSEE_SHARE_NP, INSEE_SHARE_BA, INSEE_SHARE_FP } insee_share_policy;
enum { INSEE_SHARE_APP = 0, INSEE_SHARE_IO = 1 };

typedef struct insee_share insee_share;

/* `capacity` has `links` entries, each > 0; borrowed until freed. */
insee_share *insee_share_new(uint32_t links, const double *capacity, insee_share_rule rule,
                             insee_share_policy policy, double app_share);
void insee_share_free(insee_share *s);

/* A new flow over `n` links (n >= 1, each < links, none twice), of class
   INSEE_SHARE_APP or INSEE_SHARE_IO. Its rate is 0 until the next update. */
uint32_t insee_share_add(insee_share *s, const uint32_t *links, uint32_t n, uint32_t cls);
void insee_share_remove(insee_share *s, uint32_t flow);

/* Give every flow whose rate may have changed since the last update its new
   rate; changed(ctx, flow, rate) for each whose rate differs. */
void insee_share_update(insee_share *s, void (*changed)(void *ctx, uint32_t flow, double rate),
                        void *ctx);

double insee_share_rate(const insee_share *s, uint32_t flow);
/* A hint, ahead of reading the flow's links or removing it: its record is
   asked for from memory. Changes nothing. */
void insee_share_prefetch(const insee_share *s, uint32_t flow);
/* The flow's links (valid until the next insee_share_add() or its removal); *n gets their number. */
const uint32_t *insee_share_links(const insee_share *s, uint32_t flow, uint32_t *n);

G_END_DECLS
#endif
