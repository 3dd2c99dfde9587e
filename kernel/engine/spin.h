/* kernel/engine/spin.h — how a thread waits for another a few microseconds
 * away (the crew's workers, a split run's parts): it spins, for the wait
 * is shorter than a sleeping thread's wake-up, but politely.
 */
#ifndef INSEE_KERNEL_SPIN_H
#define INSEE_KERNEL_SPIN_H

#include <glib.h>
#include <stdint.h>

/* Spins before a waiting thread also yields its core at each turn. */
#define INSEE_EAGER_SPINS 1000u

/* A hint to the core that this thread waits in a loop, so the thread it
   waits for (maybe its other hyperthread) runs on and the loop's exit
   costs no mispredicted memory order. */
static inline void insee_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* The `spin`-th turn of a wait: the hint, and past INSEE_EAGER_SPINS turns
   the core too, for when there are more threads than free cores. */
static inline void insee_spin_pause(uint32_t spin)
{
    insee_cpu_relax();
    if (spin >= INSEE_EAGER_SPINS)
        g_thread_yield();
}

#endif
