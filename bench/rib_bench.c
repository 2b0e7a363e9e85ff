// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared RIB benchmark: N IPv4 prefixes (a mix of /24s and /32s spread
 * over the address space) with a path from each of 4 peers, as a full
 * table from 4 planes would arrive. Times insert, drain, walk, lookup,
 * one peer's flush and free; reports the RIB's own byte count and the
 * process's RSS growth. Then, with the drained entries, the FIB side as
 * fared keeps it (fare_fib.h: the FARE policy per prefix, 4 planes of
 * 400G, and what was programmed, with an apply that accepts every op):
 * its heap, counted by mallinfo2().
 *
 *   bench/rib_bench.sh [--hosts] [N...]     (default: 100000 400000)
 *
 * --hosts: N consecutive /32s from 10.128.0.0, as bench/run-bgp-100k's
 * leaves advertise, instead of the scattered mix.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fare_fib.h"
#include "rib.h"

#define PEERS 4

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static size_t heap_bytes(void)
{
	return mallinfo2().uordblks;
}

static void peer_of(void *arg, unsigned int peer, struct fare_fib_peer *out)
{
	(void)arg;
	memset(out, 0, sizeof(*out));
	out->plane = peer + 1;
	out->link_bps = 400000000000ull;
	out->router_id = peer + 1;
}

static const struct fare_fib_cfg fib_cfg = {
	.ec = { .pb_subtype = FARE_PB_SUBTYPE_DEFAULT },
	.opts = { .role = FARE_ROLE_HOST },
	.peer_of = peer_of,
};

static int accept_all(void *arg, const struct fare_op *const *ops, size_t n,
		      size_t *failed)
{
	(void)arg;
	(void)ops;
	(void)n;
	(void)failed;
	return 0;
}

static void to_fib(const struct rib_entry *e, void *ctx)
{
	if (fare_fib_update(ctx, &fib_cfg, e))
		abort();
}

static void nop(const struct rib_entry *e, void *ctx)
{
	(void)e;
	++*(size_t *)ctx;
}

static int count(const struct rib_entry *e, void *ctx)
{
	*(size_t *)ctx += e->n_paths;
	return 0;
}

static int hosts;

/*
 * The i-th prefix: scattered by a multiplicative hash, 1 in 4 a /32; or
 * with --hosts the i-th /32 from 10.128.0.0.
 */
static void prefix_of(unsigned int i, struct bgp_prefix *p)
{
	uint32_t a = i * 2654435761u;

	if (hosts) {
		memset(p, 0, sizeof(*p));
		p->family = BGP_FAM_IPV4_UNICAST;
		p->len = 32;
		a = (10u << 24 | 128u << 16) + i;
		p->addr[0] = a >> 24;
		p->addr[1] = a >> 16;
		p->addr[2] = a >> 8;
		p->addr[3] = a;
		return;
	}

	memset(p, 0, sizeof(*p));
	p->family = BGP_FAM_IPV4_UNICAST;
	if (i & 3) {
		p->len = 24;
		/* i * odd is one-to-one mod 2^24: distinct /24s. */
		a <<= 8;
	} else {
		p->len = 32;
	}
	p->addr[0] = a >> 24;
	p->addr[1] = a >> 16;
	p->addr[2] = a >> 8;
	p->addr[3] = a;
}

static int run(unsigned int n)
{
	struct bgp_as_segment seg = { .type = BGP_AS_SEQUENCE, .count = 2 };
	struct rib_attrs *attrs[PEERS];
	struct bgp_attrs in;
	struct rib_stats st;
	uint32_t asns[2];
	struct rib *rib;
	size_t drained = 0, walked = 0, found = 0, heap0, heap1, programmed;
	struct fare_fib_flush_stats fst;
	struct fare_fib *fib;
	double t0, t_ins, t_drain, t_walk, t_look, t_flush, t_free;
	long rss0 = rss_kib(), rss1;
	unsigned int i, k;
	struct bgp_prefix p;

	rib = rib_new();
	if (!rib)
		return 1;
	for (k = 0; k < PEERS; k++) {
		memset(&in, 0, sizeof(in));
		asns[0] = 65001 + k;
		asns[1] = 65100;
		seg.asns = asns;
		in.as_path.n_segments = 1;
		in.as_path.segments = &seg;
		in.as_path.n_asns = 2;
		in.as_path.asns = asns;
		in.next_hop[0] = 192;
		in.next_hop[3] = k + 1;
		attrs[k] = rib_attrs_get(rib, &in, BGP_FAM_IPV4_UNICAST);
		if (!attrs[k])
			return 1;
	}
	t0 = now();
	for (k = 0; k < PEERS; k++)
		for (i = 0; i < n; i++) {
			prefix_of(i, &p);
			if (rib_update(rib, k, &p, attrs[k]))
				return 1;
		}
	t_ins = now() - t0;
	rss1 = rss_kib();
	rib_get_stats(rib, &st);

	t0 = now();
	fib = fare_fib_new(accept_all, NULL);
	if (!fib)
		return 1;
	heap0 = heap_bytes();
	rib_drain(rib, to_fib, fib);
	fare_fib_flush(fib, 0, NULL, NULL, &fst);
	heap1 = heap_bytes();
	t_drain = now() - t0;
	drained = fst.ops;

	t0 = now();
	rib_walk(rib, count, &walked);
	t_walk = now() - t0;

	t0 = now();
	for (i = 0; i < n; i++) {
		prefix_of(i, &p);
		found += rib_lookup(rib, &p) != NULL;
	}
	t_look = now() - t0;

	t0 = now();
	rib_peer_flush(rib, 0, ~0u);
	drained = 0;
	rib_drain(rib, nop, &drained);
	t_flush = now() - t0;

	for (k = 0; k < PEERS; k++)
		rib_attrs_put(rib, attrs[k]);
	programmed = fare_fib_count(fib);
	fare_fib_free(fib);
	t0 = now();
	rib_free(rib);
	t_free = now() - t0;

	printf("prefixes %u x %d paths: %zu prefixes %zu paths (walked %zu, found %zu)\n",
	       n, PEERS, st.prefixes, st.paths, walked, found);
	printf("  insert %.3f s (%.0f ns/path), drain into the FIB %.3f s, walk %.3f s, lookup %.3f s (%.0f ns)\n",
	       t_ins, t_ins * 1e9 / ((double)n * PEERS), t_drain, t_walk,
	       t_look, t_look * 1e9 / n);
	printf("  flush one peer + drain %.3f s, free %.3f s\n", t_flush,
	       t_free);
	printf("  rib bytes %.1f MiB (%.0f B/prefix), RSS growth %.1f MiB\n",
	       st.bytes / 1048576.0, (double)st.bytes / n,
	       (rss1 - rss0) / 1024.0);
	printf("  fib: %zu routes programmed, heap %.1f MiB (%.0f B/prefix)\n",
	       programmed, (heap1 - heap0) / 1048576.0,
	       (double)(heap1 - heap0) / n);
	return walked != (size_t)n * PEERS || found != n || programmed != n;
}

int main(int argc, char **argv)
{
	int i, ret = 0;

	if (argc > 1 && !strcmp(argv[1], "--hosts")) {
		hosts = 1;
		argv++;
		argc--;
	}
	if (argc < 2)
		return run(100000) || run(400000);
	for (i = 1; i < argc; i++)
		ret |= run(strtoul(argv[i], NULL, 0));
	return ret;
}
