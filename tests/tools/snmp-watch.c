// SPDX-License-Identifier: GPL-2.0-only
/*
 * snmp-watch: timestamps the changes of one /proc/net/snmp counter.
 *
 *   snmp-watch GROUP COUNTER [INTERVAL-MS]
 *
 * Prints "sampling" once the counter has been read, then "MS VALUE"
 * (MS: CLOCK_REALTIME in milliseconds) at the start and whenever the
 * value changes, reading it every INTERVAL-MS (default 10) until killed.
 * Run it in the namespace whose counter it is (ip netns exec). The lab's
 * sampler was Python, whose start-up took over two minutes on the debug
 * kernel beside a stream and BIRD with BFD (tests/lab/bfd-dead-leaf.sh);
 * this starts at once and reads the file with two system calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The value under COUNTER, from a group's two lines after "Group:". */
static long long find_value(char *names, char *values, const char *counter)
{
	char *ns = NULL, *vs = NULL;
	char *name = strtok_r(names, " ", &ns);
	char *value = strtok_r(values, " ", &vs);

	while (name && value) {
		if (!strcmp(name, counter))
			return strtoll(value, NULL, 10);
		name = strtok_r(NULL, " ", &ns);
		value = strtok_r(NULL, " ", &vs);
	}
	return -1;
}

/* The value of COUNTER in GROUP, or -1 with a message on standard error. */
static long long read_counter(int fd, const char *group, const char *counter)
{
	static char buf[16384];
	size_t glen = strlen(group);
	char *names = NULL, *values = NULL, *line, *save = NULL;
	long long value;
	ssize_t n;
	size_t len = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	if (n < 0)
		return -1;
	buf[len] = '\0';
	/* Each group is two lines: "Group: names..." then "Group: values...". */
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, group, glen) || line[glen] != ':')
			continue;
		if (!names) {
			names = line + glen + 1;
		} else {
			values = line + glen + 1;
			break;
		}
	}
	if (!names || !values) {
		fprintf(stderr, "snmp-watch: no group %s in /proc/net/snmp\n",
			group);
		return -1;
	}
	value = find_value(names, values, counter);
	if (value >= 0)
		return value;
	fprintf(stderr, "snmp-watch: no counter %s in group %s\n", counter,
		group);
	return -1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long interval_ms = 10;
	long long value, last;
	struct timespec gap;
	int fd;

	if (argc < 3 || argc > 4) {
		fprintf(stderr,
			"usage: snmp-watch GROUP COUNTER [INTERVAL-MS]\n");
		return 2;
	}
	if (argc == 4) {
		char *end;

		interval_ms = strtol(argv[3], &end, 10);
		if (*end || interval_ms < 1 || interval_ms > 10000) {
			fprintf(stderr,
				"snmp-watch: interval %s: not 1 to 10000 ms\n",
				argv[3]);
			return 2;
		}
	}
	gap.tv_sec = interval_ms / 1000;
	gap.tv_nsec = (interval_ms % 1000) * 1000000L;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open("/proc/net/snmp", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "snmp-watch: /proc/net/snmp: %s\n",
			strerror(errno));
		return 1;
	}
	last = read_counter(fd, argv[1], argv[2]);
	if (last < 0)
		return 1;
	printf("sampling\n%lld %lld\n", now_ms(), last);
	for (;;) {
		nanosleep(&gap, NULL);
		value = read_counter(fd, argv[1], argv[2]);
		if (value < 0)
			return 1;
		if (value != last) {
			printf("%lld %lld\n", now_ms(), value);
			last = value;
		}
	}
}
