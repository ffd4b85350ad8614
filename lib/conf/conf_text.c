/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration file as text: its syntax checked line by line (so a
 * stray line is reported with its number), and the line of a section or
 * key found again for an error, since rte_cfgfile keeps no line numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_cfgfile.h>

#include "conf_priv.h"

/* Trimmed copy of a line into buf. */
static void
trim(const char *s, size_t n, char *buf, size_t len)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/*
 * Line of key in section (key NULL: the section header). @return 0 when
 * not found; a missing key falls back to its section's header.
 */
static unsigned int
line_of(const struct conf_ctx *x, const char *section, const char *key)
{
	const char *p = x->text;
	char cur[CFG_NAME_LEN] = "", buf[512];
	unsigned int ln = 0, sec_line = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");

		ln++;
		trim(p, n, buf, sizeof(buf));
		if (buf[0] == '[') {
			char *close = strchr(buf, ']');

			if (close != NULL) {
				*close = '\0';
				trim(buf + 1, strlen(buf + 1), cur, sizeof(cur));
				if (strcmp(cur, section) == 0 && sec_line == 0) {
					sec_line = ln;
					if (key == NULL)
						return ln;
				}
			}
		} else if (key != NULL && strcmp(cur, section) == 0) {
			size_t kl = strlen(key);

			if (strncmp(buf, key, kl) == 0 &&
			    (buf[kl] == '=' || isspace((unsigned char)buf[kl])))
				return ln;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return sec_line;
}

/* The line of the nth header of section (1: the first), 0: none. */
unsigned int
conf_section_line(const struct conf_ctx *x, const char *section, unsigned int nth)
{
	const char *p = x->text;
	char buf[512], name[CFG_NAME_LEN];
	unsigned int ln = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *close;

		ln++;
		trim(p, n, buf, sizeof(buf));
		close = buf[0] == '[' ? strchr(buf, ']') : NULL;
		if (close != NULL) {
			*close = '\0';
			trim(buf + 1, strlen(buf + 1), name, sizeof(name));
			if (strcmp(name, section) == 0 && --nth == 0)
				return ln;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return 0;
}

int
conf_fail(const struct conf_ctx *x, const char *section, const char *key,
	  const char *fmt, ...)
{
	char msg[DCN_CONF_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "%s:%u: [%s]%s%s: %s", x->file,
		 line_of(x, section, key), section, key ? " " : "",
		 key ? key : "", msg);
	return -EINVAL;
}

/* An error echoes the file's text: its control bytes (ESC would drive
 * the terminal) and non-ASCII bytes shown as '?'. */
void
conf_printable(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* Syntax: blank, comment, [section] or key = value, line by line. */
int
conf_check_syntax(struct conf_ctx *x)
{
	const char *p = x->text, *cr;
	char buf[512], val[512], section[CFG_NAME_LEN] = "";
	unsigned int ln = 0;
	int in_section = 0;

	/* What the parser would misread rather than refuse: a byte-order
	 * mark would be part of the first line, and lines ended by a bare
	 * CR (old Mac files) would be one line. */
	if (strncmp(p, "\xef\xbb\xbf", 3) == 0) {
		snprintf(x->err, x->errlen, "%s:1: the file begins with a UTF-8 "
			 "byte-order mark: save it without one", x->file);
		return -EINVAL;
	}
	for (cr = strchr(p, '\r'); cr != NULL; cr = strchr(cr + 1, '\r'))
		if (cr[1] != '\n') {
			const char *q;

			for (q = p, ln = 1; q < cr; q++)
				ln += *q == '\n';
			snprintf(x->err, x->errlen, "%s:%u: a line ends in a carriage "
				 "return alone: save the file with \\n (or \\r\\n) "
				 "line ends", x->file, ln);
			return -EINVAL;
		}
	ln = 0;
	while (*p) {
		size_t n = strcspn(p, "\n");

		ln++;
		trim(p, n, buf, sizeof(buf));
		if (buf[0] == '\0' || buf[0] == ';' || buf[0] == '#') {
			/* nothing */
		} else if (buf[0] == '[') {
			if (strchr(buf, ']') == NULL || strchr(buf, ']') == buf + 1) {
				snprintf(x->err, x->errlen, "%s:%u: bad section header '%s'",
					 x->file, ln, buf);
				return -EINVAL;
			}
			in_section = 1;
			*strchr(buf, ']') = '\0';
			if (strlen(buf + 1) >= CFG_NAME_LEN) {
				snprintf(x->err, x->errlen, "%s:%u: section name longer "
					 "than %d characters", x->file, ln,
					 CFG_NAME_LEN - 1);
				return -EINVAL;
			}
			snprintf(section, sizeof(section), "%s", buf + 1);
		} else if (strchr(buf, '=') == NULL || buf[0] == '=') {
			snprintf(x->err, x->errlen, "%s:%u: expected key = value, got '%s'",
				 x->file, ln, buf);
			return -EINVAL;
		} else if (!in_section) {
			snprintf(x->err, x->errlen, "%s:%u: key outside any [section]",
				 x->file, ln);
			return -EINVAL;
		} else {
			/* rte_cfgfile would cut a longer key or value short
			 * without a word: refuse it here, by its name. */
			char key[CFG_NAME_LEN + 1];
			const char *eq = strchr(buf, '=');
			size_t vl;

			trim(buf, (size_t)(eq - buf), key, sizeof(key));
			trim(eq + 1, strcspn(eq + 1, ";"), val, sizeof(val));
			vl = strlen(val);
			if (strlen(key) >= CFG_NAME_LEN || vl >= CFG_VALUE_LEN) {
				snprintf(x->err, x->errlen, "%s:%u: [%s] %.64s: %s longer "
					 "than %d characters", x->file, ln, section,
					 key, vl >= CFG_VALUE_LEN ? "value" : "key",
					 (vl >= CFG_VALUE_LEN ? CFG_VALUE_LEN : CFG_NAME_LEN) - 1);
				return -EINVAL;
			}
		}
		if (n >= CFG_VALUE_LEN + CFG_NAME_LEN) {
			snprintf(x->err, x->errlen, "%s:%u: line too long", x->file, ln);
			return -EINVAL;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return 0;
}
