/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every construction uses: errors, bit widths, bounded products,
 * vertex-name lists, kind names. A leaf: topo.c and each topology's file
 * build on it, and it on neither.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo_priv.h"

void
topo_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

unsigned int
topo_bits_for(uint32_t max_value)
{
	unsigned int b = 1;

	while (b < 32 && (max_value >> b) != 0)
		b++;
	return b;
}

int
topo_mul_limit(uint64_t *acc, uint64_t f, uint64_t limit)
{
	if (f != 0 && *acc > limit / f)
		return -1;
	*acc *= f;
	return *acc > limit ? -1 : 0;
}

int
topo_parse_list(const char *s, uint32_t *vals, int max)
{
	char close = 0;
	int n = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '(')
		close = ')';
	else if (*s == '[')
		close = ']';
	if (close)
		s++;
	for (;;) {
		char *end;
		unsigned long v;

		while (isspace((unsigned char)*s))
			s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno != 0 || v > UINT32_MAX || n == max)
			return -1;
		vals[n++] = (uint32_t)v;
		s = end;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == ',') {
			s++;
			continue;
		}
		break;
	}
	if (close) {
		if (*s != close)
			return -1;
		s++;
	}
	while (isspace((unsigned char)*s))
		s++;
	return *s == '\0' ? n : -1;
}

const char *
dcn_topo_kind_name(enum dcn_topo_kind kind)
{
	static const char *const names[DCN_TOPO_KIND_MAX] = {
		[DCN_TOPO_NOVACUBE] = "novacube",
		[DCN_TOPO_TORUS] = "torus",
		[DCN_TOPO_DIAMOND] = "diamond",
		[DCN_TOPO_RRECT] = "rrect",
		[DCN_TOPO_LASCADA] = "lascada",
		[DCN_TOPO_TOTORO] = "totoro",
	};

	return kind < DCN_TOPO_KIND_MAX ? names[kind] : "?";
}
