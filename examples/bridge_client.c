/* examples/bridge_client.c — a tiny client of insee's sync-server bridge:
 * ping-pong between two nodes through the simulated network.
 *
 *   bridge_client ADDRESS NODE PEER ROUNDS
 *
 * Run one process for each node (see examples/bridge-lockstep.toml). The
 * process of the lower node sends a 64-byte ping at the start of the first
 * slice; each side answers what it receives at the start of the slice it
 * received it in; after ROUNDS round trips the pinger prints each round
 * trip in client time units and both leave. */
#include <insee/client.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s ADDRESS NODE PEER ROUNDS\n", argv[0]);
        return 2;
    }
    uint32_t node = (uint32_t)strtoul(argv[2], NULL, 10);
    uint32_t peer = (uint32_t)strtoul(argv[3], NULL, 10);
    unsigned long rounds = strtoul(argv[4], NULL, 10);
    int pinger = node < peer;
    char name[32];
    snprintf(name, sizeof name, "node%u", node);
    insee_client_error err;
    insee_client *c = insee_client_connect(argv[1], name, &node, 1, &err);
    if (!c) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return 1;
    }
    unsigned long got = 0;
    uint64_t sent_at = 0;
    int status = 0;
    for (;;) {
        insee_client_slice sl;
        const insee_client_delivery *d;
        size_t n;
        /* Hands over what the previous slice sent: the ponger's last pong. */
        if (!insee_client_end_slice(c, &sl, &d, &n, &err)) {
            fprintf(stderr, "%s: %s\n", name, err.message);
            status = 1;
            break;
        }
        if (got == rounds)
            break;
        for (size_t i = 0; i < n; i++, got++)
            if (pinger)
                printf("round %lu: %llu client units\n", got + 1,
                       (unsigned long long)(sl.start_unit - sent_at));
        if (pinger && got == rounds)
            break;
        if ((pinger && sl.index == 0) || n > 0) {
            if (!insee_client_inject(c, node, peer, 64, sl.start_unit, got, NULL, 0, &err)) {
                fprintf(stderr, "%s: %s\n", name, err.message);
                status = 1;
                break;
            }
            sent_at = sl.start_unit;
        }
    }
    insee_client_close(c);
    return status;
}
