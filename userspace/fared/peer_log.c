// SPDX-License-Identifier: GPL-2.0-only
/*
 * A neighbor's log rate limit (peer_int.h, plog_limited()): what a peer
 * can cause once per UPDATE or per prefix (a malformed UPDATE, a route it
 * makes unsendable) takes a token from a bucket of PEER_LOG_BURST refilled
 * one per PEER_LOG_REFILL_MS; a line without a token is counted, and one
 * summary line says how many went once the refill period has passed. A
 * hostile peer thus costs at most about ten lines a minute, and the log
 * still says that it happened and how often.
 */
#include "peer_int.h"

static void log_summary(struct timer *t)
{
	struct peer *p = t->arg;

	if (!p->log_suppressed)
		return;
	plog(p, "%llu similar message%s suppressed (log rate limit: %u, "
	     "then one per %u s)", (unsigned long long)p->log_suppressed,
	     p->log_suppressed == 1 ? "" : "s", PEER_LOG_BURST,
	     PEER_LOG_REFILL_MS / 1000);
	p->log_suppressed = 0;
}

void peer_log_init(struct peer *p)
{
	p->log_tokens = PEER_LOG_BURST;
	p->log_refill_at = loop_now_ms();
	timer_init(&p->log_summary, log_summary, p);
}

void peer_log_fini(struct peer *p)
{
	timer_stop(&p->d->loop, &p->log_summary);
	log_summary(&p->log_summary);
}

bool peer_log_take(struct peer *p)
{
	uint64_t now = loop_now_ms(), periods;

	periods = (now - p->log_refill_at) / PEER_LOG_REFILL_MS;
	if (periods) {
		p->log_refill_at += periods * PEER_LOG_REFILL_MS;
		if (periods >= PEER_LOG_BURST - p->log_tokens)
			p->log_tokens = PEER_LOG_BURST;
		else
			p->log_tokens += periods;
	}
	if (p->log_tokens) {
		p->log_tokens--;
		return true;
	}
	p->log_suppressed++;
	p->log_suppressed_total++;
	if (!p->log_summary.armed)
		timer_set(&p->d->loop, &p->log_summary, PEER_LOG_REFILL_MS);
	return false;
}
