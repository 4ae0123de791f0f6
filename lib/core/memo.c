/*
 * memo.c - results computed from an input file, kept for the simulations
 * that share them (aiwi_memo, internal.h).  A sweep runs one simulation per
 * task, and each would read and fit the same measured profile again; the
 * sweep gives its simulations one memo, and a model that derives a small
 * result from a file (a profile's fitted coefficients) looks it up there
 * first.  An entry is keyed by the model's own key string and the file's
 * identity when it was read (device, inode, size, modification time), so
 * that a file changed between two runs is read again.  Entries are small
 * byte strings copied in and out; the memo is shared between threads (a
 * sweep's workers) under a mutex and freed with its last reference.  A
 * simulation without a memo (the default) computes everything itself.
 */
#include "core/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct memo_entry {
	char *key;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	size_t len;
	unsigned char *val;
} memo_entry;

struct aiwi_memo {
	pthread_mutex_t lock;
	unsigned refs;
	memo_entry *v;
	size_t n, cap;
	uint64_t hits, misses;
};

/* At most this many entries: a sweep's points name few distinct files and
 * configurations; past it, new results are not kept (computed again). */
#define MEMO_MAX 256

aiwi_memo *aiwi_memo_new(void)
{
	aiwi_memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	if (pthread_mutex_init(&m->lock, NULL) != 0) {
		free(m);
		return NULL;
	}
	m->refs = 1;
	return m;
}

void aiwi_memo_ref(aiwi_memo *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->refs++;
	pthread_mutex_unlock(&m->lock);
}

void aiwi_memo_unref(aiwi_memo *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	unsigned left = --m->refs;
	pthread_mutex_unlock(&m->lock);
	if (left)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].val);
	}
	free(m->v);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static bool same_file(const memo_entry *e, const struct stat *st)
{
	return e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
	       e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

bool aiwi_memo_get(aiwi_memo *m, const char *path, const char *key, void *out, size_t len)
{
	struct stat st;
	if (!m || !path || !key || stat(path, &st) != 0)
		return false;
	bool found = false;
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->n && !found; i++) {
		const memo_entry *e = &m->v[i];
		if (e->len == len && strcmp(e->key, key) == 0 && same_file(e, &st)) {
			memcpy(out, e->val, len);
			found = true;
		}
	}
	if (found)
		m->hits++;
	else
		m->misses++;
	pthread_mutex_unlock(&m->lock);
	return found;
}

void aiwi_memo_put(aiwi_memo *m, const char *path, const char *key, const void *val, size_t len,
                   const struct stat *read_as)
{
	if (!m || !path || !key || !read_as)
		return;
	char *k = strdup(key);
	unsigned char *v = malloc(len ? len : 1);
	if (!k || !v) {
		free(k);
		free(v);
		return; /* not kept: computed again next time */
	}
	memcpy(v, val, len);
	pthread_mutex_lock(&m->lock);
	bool kept = false;
	for (size_t i = 0; i < m->n && !kept; i++) /* another thread's result first */
		kept = m->v[i].len == len && strcmp(m->v[i].key, key) == 0 && same_file(&m->v[i], read_as);
	if (!kept && m->n < MEMO_MAX) {
		if (m->n == m->cap) {
			size_t cap = m->cap ? 2 * m->cap : 8;
			memo_entry *nv = realloc(m->v, cap * sizeof *nv);
			if (nv) {
				m->v = nv;
				m->cap = cap;
			}
		}
		if (m->n < m->cap) {
			m->v[m->n++] = (memo_entry){k,
			                            read_as->st_dev,
			                            read_as->st_ino,
			                            read_as->st_size,
			                            read_as->st_mtim,
			                            len,
			                            v};
			k = NULL;
			v = NULL;
		}
	}
	pthread_mutex_unlock(&m->lock);
	free(k);
	free(v);
}

void aiwi_memo_counts(aiwi_memo *m, uint64_t *hits, uint64_t *misses)
{
	pthread_mutex_lock(&m->lock);
	*hits = m->hits;
	*misses = m->misses;
	pthread_mutex_unlock(&m->lock);
}
