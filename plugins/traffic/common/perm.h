/* perm.h — the permutation patterns of INSEE §3.2.1 (Table 2), plus shift
 * and nearest neighbour, as a destination per task; shared by the traffic
 * plugins that send "to a permutation" (compiled into each .so, hidden like
 * everything but the entry).
 *
 * The bit permutations act on the l = ceil(log2 N) bits of the task index
 * (N tasks) exactly as Table 2 writes them; tornado and shift move the
 * index or the coordinates (tornado in one of three definitions,
 * traffic_perm_tornado); nearest neighbour draws one of the 2n
 * neighbours of a k-ary n-cube per packet. The bit permutations need N to
 * be a power of two (on other counts some images would not exist): create
 * refuses them there. A task whose image is itself has no destination: it
 * is silent.
 *
 * Images are computed once at create into a table, so a destination costs
 * one read (nearest neighbour: one draw and one move on the grid). tornado
 * and neighbour read the grid from host->coords() (grid.h).
 */
#ifndef INSEE_TRAFFIC_PERM_H
#define INSEE_TRAFFIC_PERM_H

#include <insee/insee.h>

/* The patterns, in the order of TRAFFIC_PERM_CHOICES. */
typedef enum traffic_perm_pattern {
    TRAFFIC_PERM_BIT_COMPLEMENT,
    TRAFFIC_PERM_BIT_REVERSAL,
    TRAFFIC_PERM_BIT_TRANSPOSE,
    TRAFFIC_PERM_BUTTERFLY,
    TRAFFIC_PERM_PERFECT_SHUFFLE,
    TRAFFIC_PERM_TORNADO,
    TRAFFIC_PERM_SHIFT,
    TRAFFIC_PERM_NEIGHBOUR,
} traffic_perm_pattern;

/* Their names, for an ENUM parameter (a plugin may put choices before them). */
#define TRAFFIC_PERM_CHOICES                                                  \
    "bit-complement|bit-reversal|bit-transpose|butterfly|perfect-shuffle|"   \
    "tornado|shift|neighbour"

/* The `offset` entry of a parameter table: shift's distance. */
#define TRAFFIC_PERM_OFFSET_PARAM                                            \
    {"offset", INSEE_PARAM_INT, "1", -2147483648.0, 2147483647.0, NULL, "tasks", \
     "shift only: task t sends to (t + offset) mod N"}

/* The three definitions of tornado on a k_0 x k_1 x ... grid (s_d, d_d the
   coordinates of source and destination along dimension d):
   PER_DIMENSION (Towles and Dally): d_d = (s_d + ceil(k_d/2) - 1) mod k_d
                 in every dimension;
   TABLE2        (INSEE's paper, Table 2): d_0 = (s_0 + floor(k_0/2)) mod k_0,
                 the other coordinates kept;
   INSEE         (INSEE's code): d = (s + floor((k_0 - 1)/2)) mod N on the
                 task index, so a move past the end of a row carries into
                 the next one. */
typedef enum traffic_perm_tornado {
    TRAFFIC_TORNADO_PER_DIMENSION,
    TRAFFIC_TORNADO_TABLE2,
    TRAFFIC_TORNADO_INSEE,
} traffic_perm_tornado;

/* The `tornado` entry of a parameter table, in the order above. */
#define TRAFFIC_PERM_TORNADO_PARAM                                                     \
    {"tornado", INSEE_PARAM_ENUM, "\"per-dimension\"", 1, 0, "per-dimension|table2|insee", \
     NULL,                                                                             \
     "tornado only: every coordinate by ceil(k/2) - 1 (Towles and Dally), x by k/2 "   \
     "(INSEE's Table 2) or the node number by floor((k_x - 1)/2) (INSEE's code)"}

typedef struct traffic_perm traffic_perm;

/* The pattern `pattern` (named `name`, as the parameter gave it) over the
   tasks of host->shape(); shift moves by `offset`, tornado follows the
   definition `tornado`. Logs at the info level
   how many tasks are silent. NULL with err filled (the message starts with
   `who`) when the pattern needs coordinates the topology lacks, or out of
   memory. */
traffic_perm *traffic_perm_create(const char *who, traffic_perm_pattern pattern,
                                  const char *name, int64_t offset,
                                  traffic_perm_tornado tornado, const insee_host *host,
                                  insee_error *err);
void traffic_perm_destroy(traffic_perm *p);

/* Whether `task` has no destination (it sends nothing). */
bool traffic_perm_silent(const traffic_perm *p, uint32_t task);
/* How many tasks are not silent. */
uint32_t traffic_perm_senders(const traffic_perm *p);
/* The destination of a packet of `task` (not silent); only neighbour draws
   from rng. */
uint32_t traffic_perm_dst(const traffic_perm *p, uint32_t task, insee_rng *rng);

#endif
