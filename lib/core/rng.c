/*
 * rng.c - MT19937 as a GSL generator type (see rng.h).  Seeding as GSL's
 * mt19937 does it since GSL 1.9 (seed 0 means 4357; Knuth's multiplier
 * 1812433253), output tempering as the reference code.
 */
#include "core/rng.h"

#include <math.h>
#include <pthread.h>

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

void aiwi_mt_refill(aiwi_mt_state *s)
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

static unsigned long int mt_get(void *vs) { return aiwi_mt_get(vs); }

static double mt_get_double(void *vs) { return aiwi_mt_get(vs) / 4294967296.0; }

static void mt_set(void *vs, unsigned long int seed)
{
	aiwi_mt_state *s = vs;
	if (seed == 0)
		seed = 4357;
	s->mt[0] = (uint32_t)seed;
	for (int i = 1; i < N; i++)
		s->mt[i] = 1812433253u * (s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) + (uint32_t)i;
	s->mti = N;
}

static const gsl_rng_type mt_type = {"mt19937", 0xffffffffUL, 0, sizeof(aiwi_mt_state), mt_set,
                                     mt_get, mt_get_double};

const gsl_rng_type *const aiwi_rng_mt19937 = &mt_type;

gsl_rng *aiwi_rng_alloc(void) { return gsl_rng_alloc(aiwi_rng_mt19937); }

/* ---- the exponential ziggurat (rng.h) ----
 * Layer i in 1 .. 255 is the rectangle [0, x_i] x [f(x_i), f(x_(i-1))] for
 * f(x) = exp(-x), x_255 = r the outermost, x_1 the innermost (f(x_0) = 1):
 * its points with x < x_(i-1) lie under f (accepted at once: u < ke[i]),
 * the others take the wedge test.  Layer 0 is the base [0, q] x [0, f(r)]
 * with q = v / f(r): its points beyond r stand for the tail.  Each layer's
 * area is v.  Table of the paper (its efix), with 2^24 points a layer
 * instead of 2^32. */
#define ZR 7.697117470131487
#define ZV 3.949659822581572e-3
#define ZM 16777216.0 /* 2^24 */

uint32_t aiwi_zke[256];
double aiwi_zwe[256], aiwi_zfe[256];

/* The fast case's count for layer i: the points (u + 1/2) w, u < 2^24,
 * below x (all accepted without a test). */
static uint32_t zcount(double x, double w)
{
	double c = ceil(x / w - 0.5);
	return c <= 0 ? 0 : c >= ZM ? (uint32_t)ZM : (uint32_t)c;
}

static void zig_build(void)
{
	double x[256]; /* x[i] as above; x[0] = q, the base's width */
	x[255] = ZR;
	for (int i = 254; i >= 1; i--)
		x[i] = -log(ZV / x[i + 1] + exp(-x[i + 1]));
	x[0] = ZV / exp(-ZR);
	for (int i = 0; i < 256; i++) {
		aiwi_zwe[i] = x[i] / ZM;
		aiwi_zfe[i] = i == 0 ? 1.0 : exp(-x[i]);
	}
	aiwi_zke[0] = zcount(ZR, aiwi_zwe[0]);
	aiwi_zke[1] = 0;
	for (int i = 2; i < 256; i++)
		aiwi_zke[i] = zcount(x[i - 1], aiwi_zwe[i]);
}

static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

void aiwi_rng_exp_init(void) { pthread_once(&zig_once, zig_build); }

double aiwi_zexp_slow(gsl_rng *r, uint32_t i, uint32_t u)
{
	for (;;) {
		if (i == 0) /* the tail: r + Exp(1) */
			return ZR - log(aiwi_rng_uniform_pos(r));
		double x = (u + 0.5) * aiwi_zwe[i];
		/* a uniform height in the layer's strip [f(x_i), f(x_(i-1))]
		 * (layer 1: [f(x_1), 1]) against f(x) */
		double lo = aiwi_zfe[i], hi = aiwi_zfe[i - 1]; /* zfe[0] = 1 */
		if (lo + aiwi_rng_uniform(r) * (hi - lo) < exp(-x))
			return x;
		uint32_t w = aiwi_rng_u32(r);
		i = w & 255u;
		u = w >> 8;
		if (u < aiwi_zke[i])
			return (u + 0.5) * aiwi_zwe[i];
	}
}
