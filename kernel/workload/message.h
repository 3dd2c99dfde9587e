/* kernel/workload/message.h — what the kernel reads of a message beyond its
 * packets: its length in bytes and its traffic class, fields that ABI 1.8
 * appended to insee_message (insee/traffic.h), and its interface and copy
 * mode, which ABI 1.13 appended.
 *
 * Contract
 * --------
 * Called by the flow engines (and whoever else turns a message into bytes)
 * on a message a traffic plugin gave, through emit() or round()'s add(),
 * with `abi_minor`, the minor that plugin was built for
 * (insee_plugin_desc.abi_minor). A plugin built before minor 8 knows
 * neither field: an emit() message is one the kernel zeroed, but round()
 * hands over the plugin's own struct, which ends before them. So these
 * functions read the minor-8 fields only when abi_minor >= 8, never
 * otherwise. The minor-13 fields lie in the minor-8 struct's padding, which
 * an older plugin may overwrite even in emit(): they are read only when
 * abi_minor >= 13 (INSEE_MESSAGE_NIC_MINOR, which also gates them in
 * insee_program_event). None keeps the pointer; msg is never NULL.
 */
#ifndef INSEE_KERNEL_WORKLOAD_MESSAGE_H
#define INSEE_KERNEL_WORKLOAD_MESSAGE_H

#include <insee/insee.h>

/* The message's length in bytes: msg->bytes when the plugin's minor is 8 or
   later and it gave one (> 0), else packets x packet_bytes (packet_bytes =
   [simulation] packet_phits x phit_bytes). */
uint64_t insee_message_bytes(const insee_message *msg, uint32_t abi_minor, uint64_t packet_bytes);

/* The message's traffic class as the plugin gave it: msg->traffic_class from
   a plugin of minor 8 or later, else INSEE_TRAFFIC_APP. A value other than
   INSEE_TRAFFIC_APP and INSEE_TRAFFIC_IO is the plugin's mistake, for the
   caller to refuse naming the plugin. A [background] section's class = "io"
   overrides it (the caller applies that). */
uint32_t insee_message_class(const insee_message *msg, uint32_t abi_minor);

/* The minor that appended nic and copy to insee_message and
   insee_program_event. */
#define INSEE_MESSAGE_NIC_MINOR 13u

/* The interface the plugin named (1 + its index at the node; 0: the
   kernel's turn): msg->nic from a plugin of minor 13 or later, else 0. */
uint32_t insee_message_nic(const insee_message *msg, uint32_t abi_minor);

/* The copy mode the plugin named: msg->copy from a plugin of minor 13 or
   later, else INSEE_COPY_DEFAULT. A value above INSEE_COPY_TWO is the
   plugin's mistake, for the caller to refuse. */
uint32_t insee_message_copy(const insee_message *msg, uint32_t abi_minor);

#endif
