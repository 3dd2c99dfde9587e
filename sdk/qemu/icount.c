/* insee-icount — a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that
 * blocks the guest every `slice` instructions until insee-qemu-tm releases
 * it: QEMU runs as `-icount shift=0,sleep=off -plugin
 * insee-icount.so,sock=DIR/guest-i.clock,slice=S`, so that the guest's
 * clock is its instruction count and slice k of the simulation is the
 * guest's instructions [kS, (k+1)S).
 *
 * At each boundary the plugin writes one byte to the socket and waits for
 * one byte back. Instructions are counted when a translation block starts,
 * so a boundary falls at the start of the block that crosses it. When the
 * manager goes away the guest runs on freely.
 *
 * Debian ships no qemu-plugin.h: the few declarations used are below, as
 * QEMU 7.2's plugin API version 1 defines them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);

static int manager = -1;
/* With -icount one vCPU thread runs every CPU in turn: no locking needed. */
static uint64_t executed, boundary, slice;

static void on_block(unsigned int vcpu, void *insns)
{
    (void)vcpu;
    executed += (uintptr_t)insns;
    while (manager >= 0 && executed >= boundary) {
        char b = 'd';
        if (write(manager, &b, 1) != 1 || read(manager, &b, 1) != 1) {
            close(manager);
            manager = -1;
        }
        boundary += slice;
    }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "sock=", 5) && strlen(argv[i] + 5) < sizeof a.sun_path)
            strcpy(a.sun_path, argv[i] + 5);
        else if (!strncmp(argv[i], "slice=", 6))
            slice = strtoull(argv[i] + 6, NULL, 10);
        else
            return -1; /* QEMU says the plugin refused its arguments */
    }
    if (!a.sun_path[0] || slice == 0)
        return -1;
    manager = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (manager < 0 || connect(manager, (struct sockaddr *)&a, sizeof a) != 0)
        return -1;
    boundary = slice;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    return 0;
}
