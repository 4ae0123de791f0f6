/*
 * bench/machine.h - the line a benchmark ends with: which processor, how
 * many of them, which compiler.  Timings are only comparable on one
 * machine: the figures of a 2-core guest moved from 26-37 s to 18 s for
 * the same code when its Xeon became an EPYC.
 */
#ifndef AIW_BENCH_MACHINE_H
#define AIW_BENCH_MACHINE_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* the value of /proc/cpuinfo's first "key : value" line, or "" */
static void cpuinfo_field(const char *key, char *out, size_t size)
{
	char line[512];
	out[0] = '\0';
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	size_t k = strlen(key);
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (colon && !strncmp(line, key, k) && (line[k] == ' ' || line[k] == '\t')) {
			colon += 1 + (colon[1] == ' ');
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, size, "%s", colon);
			break;
		}
	}
	fclose(f);
}

static void print_machine(void)
{
	char model[256], family[32], number[32];
	cpuinfo_field("model name", model, sizeof model);
	cpuinfo_field("cpu family", family, sizeof family);
	cpuinfo_field("model", number, sizeof number);
	printf("machine: %s (family %s, model %s), %ld CPU(s) online, compiler %s\n",
	       model[0] ? model : "unknown processor", family[0] ? family : "?",
	       number[0] ? number : "?", sysconf(_SC_NPROCESSORS_ONLN),
#if defined(__clang__)
	       __VERSION__
#elif defined(__GNUC__)
	       "gcc " __VERSION__
#else
	       "unknown"
#endif
	);
}

#endif
