/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loader's state, shared by the text checks (conf_text.c) and the
 * loading of keys (conf.c). Private to lib/conf.
 */
#ifndef DCN_CONF_PRIV_H
#define DCN_CONF_PRIV_H

#include <stddef.h>

#include <rte_cfgfile.h>

#include "dcn_conf.h"

struct conf_ctx {
	const char *file;
	char *text;
	struct rte_cfgfile *cfg;
	char *err;
	size_t errlen;
};

/* The line of the nth header of section (1: the first), 0: none. */
unsigned int conf_section_line(const struct conf_ctx *x, const char *section,
			       unsigned int nth);
/* Control and non-ASCII bytes of s shown as '?' (an error echoes the
 * file's text). */
void conf_printable(char *s);
/* Syntax: blank, comment, [section] or key = value, line by line.
 * @return 0, or -EINVAL with the error in x->err. */
int conf_check_syntax(struct conf_ctx *x);
/* Write "FILE:LINE: [section] key: message" into x->err, the line found
 * in the text. @return -EINVAL. */
__attribute__((format(printf, 4, 5)))
int conf_fail(const struct conf_ctx *x, const char *section, const char *key,
	      const char *fmt, ...);

#endif /* DCN_CONF_PRIV_H */
