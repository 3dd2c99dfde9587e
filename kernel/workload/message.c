/* kernel/workload/message.c — a message's bytes, class, interface and copy
 * mode, read according to the minor its plugin was built for; see
 * message.h. */
#include "workload/message.h"

/* The minor that appended bytes and traffic_class to insee_message. */
#define MESSAGE_BYTES_MINOR 8u

uint64_t insee_message_bytes(const insee_message *msg, uint32_t abi_minor, uint64_t packet_bytes)
{
    if (abi_minor >= MESSAGE_BYTES_MINOR && msg->bytes > 0)
        return msg->bytes;
    return (uint64_t)msg->packets * packet_bytes;
}

uint32_t insee_message_class(const insee_message *msg, uint32_t abi_minor)
{
    return abi_minor >= MESSAGE_BYTES_MINOR ? msg->traffic_class : INSEE_TRAFFIC_APP;
}

uint32_t insee_message_nic(const insee_message *msg, uint32_t abi_minor)
{
    return abi_minor >= INSEE_MESSAGE_NIC_MINOR ? msg->nic : 0;
}

uint32_t insee_message_copy(const insee_message *msg, uint32_t abi_minor)
{
    return abi_minor >= INSEE_MESSAGE_NIC_MINOR ? msg->copy : INSEE_COPY_DEFAULT;
}
