/*
 * rng.c - MT19937 as a GSL generator type (see rng.h).  Seeding as GSL's
 * mt19937 does it since GSL 1.9 (seed 0 means 4357; Knuth's multiplier
 * 1812433253), output tempering as the reference code.
 */
#include "rng.h"

#define N AIW_MT_N
#define M 397
#define UPPER 0x80000000u
#define LOWER 0x7fffffffu

/* the twist: (y >> 1) ^ (y odd ? 0x9908b0df : 0), the constant by a mask */
static inline uint32_t twist(uint32_t a, uint32_t b, uint32_t far)
{
	uint32_t y = (a & UPPER) | (b & LOWER);
	return far ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
}

void aiw__mt_refill(aiw_mt_state *s)
{
	uint32_t *mt = s->mt;
	int k;
	for (k = 0; k < N - M; k++)
		mt[k] = twist(mt[k], mt[k + 1], mt[k + M]);
	for (; k < N - 1; k++)
		mt[k] = twist(mt[k], mt[k + 1], mt[k + (M - N)]);
	mt[N - 1] = twist(mt[N - 1], mt[0], mt[M - 1]);
	s->mti = 0;
}

static unsigned long int mt_get(void *vs) { return aiw__mt_get(vs); }

static double mt_get_double(void *vs) { return aiw__mt_get(vs) / 4294967296.0; }

static void mt_set(void *vs, unsigned long int seed)
{
	aiw_mt_state *s = vs;
	if (seed == 0)
		seed = 4357;
	s->mt[0] = (uint32_t)seed;
	for (int i = 1; i < N; i++)
		s->mt[i] = 1812433253u * (s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) + (uint32_t)i;
	s->mti = N;
}

static const gsl_rng_type mt_type = {"mt19937", 0xffffffffUL, 0, sizeof(aiw_mt_state), mt_set,
                                     mt_get, mt_get_double};

const gsl_rng_type *const aiw_rng_mt19937 = &mt_type;

gsl_rng *aiw_rng_alloc(void) { return gsl_rng_alloc(aiw_rng_mt19937); }
