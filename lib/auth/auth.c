/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Keyed BLAKE2b tags on control frames (dcn_auth.h). The key is absorbed
 * once, into a state every tag starts from by copy: a tag then costs the
 * frame's own bytes, a block or two, not a key block as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "dcn_auth.h"

#define ETHER_HDR 14
#define FABRIC_HDR 20

struct dcn_auth {
	crypto_generichash_blake2b_state keyed;
};

struct dcn_auth *
dcn_auth_create(const uint8_t key[DCN_AUTH_KEY_LEN])
{
	struct dcn_auth *a;

	if (sodium_init() < 0)
		return NULL;
	a = aligned_alloc(64, sizeof(*a));
	if (a == NULL)
		return NULL;
	if (crypto_generichash_blake2b_init(&a->keyed, key, DCN_AUTH_KEY_LEN,
					    DCN_AUTH_TAG_LEN) != 0) {
		free(a);
		return NULL;
	}
	return a;
}

void
dcn_auth_free(struct dcn_auth *a)
{
	if (a == NULL)
		return;
	sodium_memzero(a, sizeof(*a));
	free(a);
}

static int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
dcn_auth_read_key_file(const char *path, uint8_t key[DCN_AUTH_KEY_LEN],
		       char *why, size_t whylen)
{
	/* Room for the digits, blanks around them and a newline; a longer
	 * file is not a key. */
	char buf[2 * DCN_AUTH_KEY_LEN + 64];
	unsigned int digits = 0;
	struct stat st;
	ssize_t n;
	size_t i;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	/* As ssh takes a private key: one others can read, or anyone but
	 * its owner can write, is no secret. */
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(why, whylen, "%s: mode %04o lets others %s it: "
			 "chmod 600 %s", path, (unsigned int)(st.st_mode & 07777),
			 st.st_mode & (S_IWGRP | S_IWOTH) ? "change" : "read", path);
		close(fd);
		return -1;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((size_t)n == sizeof(buf)) {
		snprintf(why, whylen, "%s: longer than a key (64 hex digits)", path);
		return -1;
	}
	for (i = 0; i < (size_t)n; i++) {
		int d = hex_digit((unsigned char)buf[i]);

		if (d < 0) {
			if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
			    buf[i] == '\r')
				continue;
			snprintf(why, whylen, "%s: byte %zu is not a hex digit",
				 path, i + 1);
			sodium_memzero(buf, sizeof(buf));
			return -1;
		}
		if (digits == 2 * DCN_AUTH_KEY_LEN) {
			digits++;
			break;
		}
		if (digits % 2 == 0)
			key[digits / 2] = (uint8_t)(d << 4);
		else
			key[digits / 2] |= (uint8_t)d;
		digits++;
	}
	sodium_memzero(buf, sizeof(buf));
	if (digits != 2 * DCN_AUTH_KEY_LEN) {
		snprintf(why, whylen, "%s: a key is 64 hex digits (32 bytes), "
			 "this has %s", path, digits > 2 * DCN_AUTH_KEY_LEN ?
			 "more" : "fewer");
		return -1;
	}
	/* All zeros, or one byte repeated: a placeholder, not a key. */
	for (i = 1; i < DCN_AUTH_KEY_LEN && key[i] == key[0]; i++)
		;
	if (i == DCN_AUTH_KEY_LEN) {
		snprintf(why, whylen, "%s: every byte of the key is 0x%02x: make "
			 "one from random bytes (od -An -tx1 -N32 /dev/urandom)",
			 path, key[0]);
		sodium_memzero(key, DCN_AUTH_KEY_LEN);
		return -1;
	}
	return 0;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The tag of a frame whose header and payload are at frame + 14, with
 * the trailer's epoch and sequence at fresh. */
static void
tag_of(const struct dcn_auth *a, const uint8_t *frame, uint32_t payload_len,
       const struct dcn_auth_span *span, const uint8_t fresh[8],
       uint8_t tag[DCN_AUTH_TAG_LEN])
{
	static const uint8_t zeros[12];
	crypto_generichash_blake2b_state s = a->keyed;
	const uint8_t *body = frame + ETHER_HDR;
	uint32_t body_len = FABRIC_HDR + payload_len;

	crypto_generichash_blake2b_update(&s, span->bind_macs ? frame : zeros, 12);
	if (span->zero_at >= 0 && (uint32_t)span->zero_at < payload_len) {
		uint32_t z = FABRIC_HDR + (uint32_t)span->zero_at;

		crypto_generichash_blake2b_update(&s, body, z);
		crypto_generichash_blake2b_update(&s, zeros, 1);
		crypto_generichash_blake2b_update(&s, body + z + 1, body_len - z - 1);
	} else {
		crypto_generichash_blake2b_update(&s, body, body_len);
	}
	crypto_generichash_blake2b_update(&s, fresh, 8);
	crypto_generichash_blake2b_final(&s, tag, DCN_AUTH_TAG_LEN);
}

void
dcn_auth_sign(const struct dcn_auth *a, uint8_t *frame, uint32_t payload_len,
	      const struct dcn_auth_span *span, uint32_t epoch, uint32_t seq)
{
	uint8_t *t = frame + ETHER_HDR + FABRIC_HDR + payload_len;

	put32(t, epoch);
	put32(t + 4, seq);
	tag_of(a, frame, payload_len, span, t, t + 8);
}

enum dcn_auth_result
dcn_auth_check(const struct dcn_auth *a, const uint8_t *frame,
	       uint32_t frame_len, uint32_t payload_len,
	       const struct dcn_auth_span *span, uint32_t *epoch, uint32_t *seq)
{
	const uint8_t *t = frame + ETHER_HDR + FABRIC_HDR + payload_len;
	uint8_t tag[DCN_AUTH_TAG_LEN];

	if (frame_len < ETHER_HDR + FABRIC_HDR + DCN_AUTH_TRAILER_LEN ||
	    payload_len > frame_len - ETHER_HDR - FABRIC_HDR - DCN_AUTH_TRAILER_LEN)
		return DCN_AUTH_MISSING;
	tag_of(a, frame, payload_len, span, t, tag);
	/* In constant time: how much of a tag matched must not show. */
	if (crypto_verify_16(tag, t + 8) != 0)
		return DCN_AUTH_BAD_TAG;
	*epoch = get32(t);
	*seq = get32(t + 4);
	return DCN_AUTH_OK;
}

int
dcn_auth_fresh_take(struct dcn_auth_fresh *f, uint32_t epoch, uint32_t seq)
{
	if (f->known && epoch == f->epoch && (int32_t)(seq - f->seq) <= 0)
		return 0;
	f->epoch = epoch;
	f->seq = seq;
	f->known = 1;
	return 1;
}

enum dcn_auth_peer_result
dcn_auth_peer_take(struct dcn_auth_peer *p, const struct dcn_auth_hello *h,
		   uint32_t own_epoch, uint32_t own_seq, uint32_t window)
{
	unsigned int i;

	for (i = 0; i < DCN_AUTH_PEER_RETIRED; i++)
		if (h->epoch == p->retired[i] && h->epoch != 0)
			return DCN_AUTH_PEER_REPLAYED;
	if (p->taken.known && h->epoch == p->taken.epoch) {
		if (!dcn_auth_fresh_take(&p->taken, h->epoch, h->seq))
			return DCN_AUTH_PEER_REPLAYED;
		p->heard_epoch = h->epoch;
		p->heard_seq = h->seq;
		return DCN_AUTH_PEER_TAKEN;
	}
	/* What to echo: whatever another incarnation says, so that it can
	 * prove itself. A recording replayed here only makes the next echo
	 * wrong, which its next hello mends. */
	p->heard_epoch = h->epoch;
	p->heard_seq = h->seq;
	/* Another incarnation (or the first heard): it must have heard one
	 * of our latest hellos. Unsigned distance: an echo from the future
	 * is as wrong as one from long ago. */
	if (h->echo_epoch != own_epoch || own_epoch == 0 ||
	    (uint32_t)(own_seq - h->echo_seq) >= window)
		return DCN_AUTH_PEER_UNPROVEN;
	if (p->taken.known) {
		memmove(&p->retired[1], &p->retired[0],
			sizeof(p->retired) - sizeof(p->retired[0]));
		p->retired[0] = p->taken.epoch;
	}
	p->taken = (struct dcn_auth_fresh){ h->epoch, h->seq, 1 };
	return DCN_AUTH_PEER_TAKEN;
}

uint32_t
dcn_auth_epoch_new(void)
{
	uint32_t e = 0;

	/* libsodium's generator: the kernel's, without a file to open. */
	if (sodium_init() < 0)
		return 0;
	while (e == 0)
		randombytes_buf(&e, sizeof(e));
	return e;
}

const char *
dcn_auth_result_name(enum dcn_auth_result r)
{
	switch (r) {
	case DCN_AUTH_OK: return "ok";
	case DCN_AUTH_MISSING: return "missing";
	case DCN_AUTH_BAD_TAG: return "bad_tag";
	case DCN_AUTH_REPLAYED: return "replayed";
	}
	return "?";
}
