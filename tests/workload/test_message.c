/* tests/workload/test_message.c — insee_message_bytes(),
 * insee_message_class(), insee_message_nic() and insee_message_copy()
 * (kernel/workload/message.h): the minor-8 fields are read only from a
 * plugin of minor 8 or later, the minor-13 ones only from minor 13, and a
 * length counted in packets is counted in 64 bits. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>

#include "workload/message.h"

/* insee_message as a plugin of minor 7 built it: it ends after tag. */
typedef struct message_v7 {
    uint32_t dst, packets;
    uint64_t tag;
} message_v7;

/* A minor-7 message as round()'s add() may receive one: the plugin's own,
   shorter struct, followed by whatever its stack holds (here 0xAB bytes). */
static insee_message old_message(uint32_t packets)
{
    insee_message m;
    memset(&m, 0xAB, sizeof m);
    message_v7 v7 = {.dst = 1, .packets = packets, .tag = 9};
    memcpy(&m, &v7, sizeof v7);
    return m;
}

Test(message, the_minor_7_layout_is_a_prefix_of_the_minor_8_one)
{
    cr_assert_eq(offsetof(insee_message, packets), offsetof(message_v7, packets));
    cr_assert_eq(offsetof(insee_message, tag), offsetof(message_v7, tag));
    cr_assert_geq(offsetof(insee_message, bytes), sizeof(message_v7));
}

Test(message, bytes_given_by_a_minor_8_plugin_are_taken_as_they_are)
{
    insee_message m = {.dst = 1, .packets = 3, .bytes = 129};
    cr_assert_eq(insee_message_bytes(&m, 8, 64), 129);
    cr_assert_eq(insee_message_bytes(&m, 9, 64), 129);
}

Test(message, no_bytes_count_the_packets)
{
    insee_message m = {.dst = 1, .packets = 3};
    cr_assert_eq(insee_message_bytes(&m, 8, 64), 3 * 64);
}

Test(message, a_minor_7_message_counts_its_packets_whatever_follows_it)
{
    insee_message m = old_message(5);
    cr_assert_eq(insee_message_bytes(&m, 7, 64), 5 * 64);
    cr_assert_eq(insee_message_bytes(&m, 0, 16), 5 * 16);
    cr_assert_eq(insee_message_class(&m, 7), INSEE_TRAFFIC_APP);
    /* What a reader that ignored the minor would have taken: */
    cr_assert_neq(m.bytes, 5 * 64);
    cr_assert_neq(m.traffic_class, INSEE_TRAFFIC_APP);
}

Test(message, packets_times_packet_bytes_does_not_wrap_at_32_bits)
{
    insee_message m = {.dst = 1, .packets = UINT32_MAX};
    uint64_t pb = UINT64_C(1) << 22; /* 65535 phits of 64 bytes */
    cr_assert_eq(insee_message_bytes(&m, 8, pb), (uint64_t)UINT32_MAX << 22);
}

Test(message, the_class_of_a_minor_8_message_is_its_own)
{
    insee_message io = {.dst = 1, .packets = 1, .traffic_class = INSEE_TRAFFIC_IO};
    insee_message app = {.dst = 1, .packets = 1};
    cr_assert_eq(insee_message_class(&io, 8), INSEE_TRAFFIC_IO);
    cr_assert_eq(insee_message_class(&app, 8), INSEE_TRAFFIC_APP);
}

/* insee_message as a plugin of minor 12 built it: the minor-8 fields and
   the padding that rounds the struct to 8 bytes. */
typedef struct message_v12 {
    uint32_t dst, packets;
    uint64_t tag, bytes;
    uint32_t traffic_class;
} message_v12;

/* The minor-13 fields take the minor-12 struct's padding: the size does not
   change, so an older plugin that assigns a whole struct of its own over
   emit()'s message writes its padding where nic and copy lie. */
Test(message, nic_and_copy_lie_in_the_minor_12_padding)
{
    cr_assert_eq(sizeof(insee_message), sizeof(message_v12));
    cr_assert_geq(offsetof(insee_message, nic), offsetof(message_v12, traffic_class) + 4);
    insee_message m;
    memset(&m, 0xAB, sizeof m);
    message_v12 v12 = {.dst = 1, .packets = 2, .tag = 3, .bytes = 100};
    memcpy(&m, &v12, offsetof(message_v12, traffic_class) + 4);
    cr_assert_eq(insee_message_nic(&m, 12), 0);
    cr_assert_eq(insee_message_copy(&m, 12), INSEE_COPY_DEFAULT);
    /* What a reader that ignored the minor would have taken: */
    cr_assert_neq(m.nic, 0);
    cr_assert_neq(m.copy, INSEE_COPY_DEFAULT);
}

Test(message, nic_and_copy_of_a_minor_13_message_are_its_own)
{
    insee_message m = {.dst = 1, .packets = 1, .nic = 3, .copy = INSEE_COPY_TWO};
    cr_assert_eq(insee_message_nic(&m, INSEE_MESSAGE_NIC_MINOR), 3);
    cr_assert_eq(insee_message_copy(&m, INSEE_MESSAGE_NIC_MINOR), INSEE_COPY_TWO);
}
