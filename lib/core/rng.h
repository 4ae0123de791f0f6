/*
 * rng.h - the library's random generator: MT19937 (Matsumoto & Nishimura,
 * ACM TOMACS 8(1), 1998) as a GSL generator type, word for word the
 * sequence of GSL's gsl_rng_mt19937 for every seed (tests/unit/test_dist.c
 * compares them), so that a seed gives the draws it always gave.
 *
 * Why not GSL's own: its state refill picks the twist constant with a
 * branch on the low bit of a random word, mispredicted half the time, once
 * per word drawn; here a mask does it.  And the hot paths (arrivals,
 * request sizes) draw their uniforms through aiwi_rng_uniform(_pos), inline
 * for this type instead of two calls through GSL's function pointers.
 * Every GSL distribution takes this generator like any other
 * (gsl_rng_get through the type).
 */
#ifndef AIW_RNG_H
#define AIW_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#define AIW_MT_N 624

typedef struct {
	uint32_t mt[AIW_MT_N];
	int mti;
} aiwi_mt_state;

/* "mt19937" */
extern const gsl_rng_type *const aiwi_rng_mt19937;

/* A new generator of that type (gsl_rng_free frees it), or NULL. */
gsl_rng *aiwi_rng_alloc(void);

/* The next AIW_MT_N words (internal to aiwi_mt_get). */
void aiwi_mt_refill(aiwi_mt_state *s);

static inline uint32_t aiwi_mt_get(aiwi_mt_state *s)
{
	if (__builtin_expect(s->mti >= AIW_MT_N, 0))
		aiwi_mt_refill(s);
	uint32_t k = s->mt[s->mti++];
	k ^= k >> 11;
	k ^= (k << 7) & 0x9d2c5680u;
	k ^= (k << 15) & 0xefc60000u;
	k ^= k >> 18;
	return k;
}

/* A uniform 32-bit word: the generator's own for aiwi_rng_mt19937 (the word
 * gsl_rng_get and gsl_rng_uniform take), else gsl_rng_uniform's first 32
 * bits. */
static inline uint32_t aiwi_rng_u32(gsl_rng *r)
{
	if (__builtin_expect(r->type == aiwi_rng_mt19937, 1))
		return aiwi_mt_get((aiwi_mt_state *)r->state);
	return (uint32_t)(gsl_rng_uniform(r) * 4294967296.0);
}

/* gsl_rng_uniform(r), the same value, inline for aiwi_rng_mt19937. */
static inline double aiwi_rng_uniform(gsl_rng *r)
{
	if (__builtin_expect(r->type == aiwi_rng_mt19937, 1))
		return aiwi_mt_get((aiwi_mt_state *)r->state) / 4294967296.0;
	return gsl_rng_uniform(r);
}

/* gsl_rng_uniform_pos(r): uniform on (0, 1), the same value. */
static inline double aiwi_rng_uniform_pos(gsl_rng *r)
{
	if (__builtin_expect(r->type == aiwi_rng_mt19937, 1)) {
		uint32_t k;
		do
			k = aiwi_mt_get((aiwi_mt_state *)r->state);
		while (k == 0);
		return k / 4294967296.0;
	}
	return gsl_rng_uniform_pos(r);
}

/* ---- the exponential law, by Marsaglia and Tsang's ziggurat ----
 * Marsaglia & Tsang, "The Ziggurat Method for Generating Random Variables",
 * J. Stat. Softw. 5(8), 2000: 256 layers of equal area under exp(-x), the
 * base one with the tail beyond r = 7.697...  One 32-bit word: its low 8
 * bits pick the layer, its high 24 bits the point x = (u + 1/2) x_i / 2^24
 * inside it (separate bits, against the correlation of layer and point of
 * the paper's code; the midpoint so that x > 0); 97.8% of draws end there.
 * A draw takes 5 ns against 12 for -log(U) here, 4.4 of either being the
 * word itself (a loop of 5e7 draws).  The rest take the wedge test against
 * exp(-x) or the tail r - log(U), with further words.  The law is Exp(1)
 * on that grid of points (2^24 a layer; -log(U) for U = k / 2^32 has
 * 2^32 points in all): tests/unit/test_dist.c checks it.  The tables are built
 * once per process (aiwi_rng_exp_init, thread-safe). */
extern uint32_t aiwi_zke[256];
extern double aiwi_zwe[256], aiwi_zfe[256];

/* Build the tables (idempotent, thread-safe); before the first draw. */
void aiwi_rng_exp_init(void);

/* The draws past the first word's fast case (rng.c). */
double aiwi_zexp_slow(gsl_rng *r, uint32_t i, uint32_t u);

/* An Exp(1) variate (aiwi_rng_exp_init called before). */
static inline double aiwi_rng_exponential(gsl_rng *r)
{
	uint32_t w = aiwi_rng_u32(r), i = w & 255u, u = w >> 8;
	if (__builtin_expect(u < aiwi_zke[i], 1))
		return (u + 0.5) * aiwi_zwe[i];
	return aiwi_zexp_slow(r, i, u);
}

#endif
