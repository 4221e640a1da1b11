/*
 * xorshift.h - the seeded generator of the randomized kernel tests:
 * xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", 2016), deterministic on every machine.
 * Define the state first: static uint64_t rng = <non-zero seed>;
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_TESTS_XORSHIFT_H
#define SLO_TESTS_XORSHIFT_H

#include <math.h>
#include <stdint.h>

/* The next number, uniform in [0, 1) (53 bits). */
static inline double urand(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* Uniform in [a, b). */
static inline double uni(double a, double b) { return a + (b - a) * urand(); }

/* Uniform integer in a..b. */
static inline int irand(int a, int b) { return a + (int)floor(urand() * (b - a + 1)); }

#endif
