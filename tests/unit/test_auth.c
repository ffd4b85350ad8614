/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/auth: a signed control frame checks, and any change to what the tag
 * covers makes it fail (every byte tried); a link-state announcement's hop
 * count and MACs are left out, as relays change them; another key fails;
 * a frame without room for the trailer is "missing"; replay protection
 * takes only newer sequences of an incarnation, across wrap; a
 * neighbour's new incarnation is taken only when its hellos echo the
 * receiver's latest, whatever its epoch's value (a jump of 2^31 and more,
 * a clock stepped back), and no recording passes; key files are read
 * strictly, each mistake named.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"
#include "dcn_auth.h"
#include "dcn_fabric.h"

#define PAYLOAD 16
#define FRAME (DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + PAYLOAD + DCN_AUTH_TRAILER_LEN)

static const struct dcn_auth_span bound = { .bind_macs = 1, .zero_at = -1 };
static const struct dcn_auth_span relayed = { .bind_macs = 0, .zero_at = 12 };

static struct dcn_auth *
auth_of(uint8_t first)
{
	uint8_t key[DCN_AUTH_KEY_LEN];
	unsigned int i;
	struct dcn_auth *a;

	for (i = 0; i < DCN_AUTH_KEY_LEN; i++)
		key[i] = (uint8_t)(first + i);
	a = dcn_auth_create(key);
	assert_non_null(a);
	return a;
}

/* A control frame of PAYLOAD bytes, signed with a, padded with pad
 * bytes that belong to nothing. */
static void
frame_of(const struct dcn_auth *a, const struct dcn_auth_span *span,
	 uint8_t *f, unsigned int pad)
{
	struct dcn_fabric_hdr h = { .version = DCN_FABRIC_VERSION,
				    .type = DCN_FT_HELLO, .ttl = 1,
				    .len = PAYLOAD, .src = 0x0a000001 };
	unsigned int i;

	memset(f, 0, FRAME + pad);
	memset(f, 0xff, 6);
	f[6] = 0x02;
	f[11] = 0x07;
	dcn_fabric_put16(f + 12, DCN_FABRIC_ETHERTYPE);
	dcn_fabric_write_hdr(f + DCN_ETHER_HDR_LEN, &h);
	for (i = 0; i < PAYLOAD; i++)
		f[DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + i] = (uint8_t)(3 * i + 1);
	dcn_auth_sign(a, f, PAYLOAD, span, 1234, 99);
}

static enum dcn_auth_result
check(const struct dcn_auth *a, const uint8_t *f, uint32_t len,
      const struct dcn_auth_span *span)
{
	uint32_t epoch = 0, seq = 0;
	enum dcn_auth_result r = dcn_auth_check(a, f, len, PAYLOAD, span, &epoch, &seq);

	if (r == DCN_AUTH_OK) {
		assert_int_equal(epoch, 1234);
		assert_int_equal(seq, 99);
	}
	return r;
}

static void
test_every_byte_counts(void **state)
{
	struct dcn_auth *a = auth_of(1);
	uint8_t f[FRAME + 8];
	unsigned int i;

	(void)state;
	frame_of(a, &bound, f, 8);
	assert_int_equal(check(a, f, sizeof(f), &bound), DCN_AUTH_OK);
	for (i = 0; i < sizeof(f); i++) {
		/* The EtherType chose the parser, padding is nobody's. */
		int covered = i != 12 && i != 13 && i < FRAME;

		f[i] ^= 0x10;
		if (check(a, f, sizeof(f), &bound) != (covered ? DCN_AUTH_BAD_TAG :
								 DCN_AUTH_OK))
			fail_msg("byte %u: %s", i, covered ? "change not seen" :
				 "refused for a byte the tag does not cover");
		f[i] ^= 0x10;
	}
	dcn_auth_free(a);
}

static void
test_relayed_span(void **state)
{
	struct dcn_auth *a = auth_of(1);
	uint8_t f[FRAME];
	unsigned int i;

	(void)state;
	frame_of(a, &relayed, f, 0);
	for (i = 0; i < FRAME; i++) {
		/* A relay's MACs and its lowered hop count. */
		int covered = i >= DCN_ETHER_HDR_LEN &&
			      i != DCN_ETHER_HDR_LEN + DCN_FABRIC_HDR_LEN + 12;

		f[i] ^= 0x01;
		assert_int_equal(check(a, f, FRAME, &relayed),
				 covered ? DCN_AUTH_BAD_TAG : DCN_AUTH_OK);
		f[i] ^= 0x01;
	}
	dcn_auth_free(a);
}

static void
test_key_and_length(void **state)
{
	struct dcn_auth *a = auth_of(1), *b = auth_of(2);
	uint8_t f[FRAME];
	uint32_t e, s;

	(void)state;
	frame_of(a, &bound, f, 0);
	assert_int_equal(check(b, f, FRAME, &bound), DCN_AUTH_BAD_TAG);
	assert_int_equal(check(a, f, FRAME - 1, &bound), DCN_AUTH_MISSING);
	assert_int_equal(check(a, f, DCN_ETHER_HDR_LEN, &bound), DCN_AUTH_MISSING);
	/* A length field that runs past the frame. */
	assert_int_equal(dcn_auth_check(a, f, FRAME, PAYLOAD + 1, &bound, &e, &s),
			 DCN_AUTH_MISSING);
	assert_int_equal(dcn_auth_check(a, f, FRAME, UINT32_MAX, &bound, &e, &s),
			 DCN_AUTH_MISSING);
	dcn_auth_free(a);
	dcn_auth_free(b);
}

static void
test_fresh(void **state)
{
	struct dcn_auth_fresh f = { 0 };

	(void)state;
	assert_int_equal(dcn_auth_fresh_take(&f, 10, 5), 1);  /* first word */
	assert_int_equal(dcn_auth_fresh_take(&f, 10, 5), 0);  /* again */
	assert_int_equal(dcn_auth_fresh_take(&f, 10, 4), 0);  /* older */
	assert_int_equal(dcn_auth_fresh_take(&f, 10, 7), 1);  /* a gap is fine */
	/* Another incarnation (the caller proved it): its count starts
	 * over, whatever the epochs' values. */
	assert_int_equal(dcn_auth_fresh_take(&f, 9, 100), 1);
	assert_int_equal(dcn_auth_fresh_take(&f, 9, 100), 0);
	assert_int_equal(dcn_auth_fresh_take(&f, 11, 0), 1);
	assert_int_equal(dcn_auth_fresh_take(&f, 11, UINT32_MAX), 0);
	f.seq = UINT32_MAX - 1;                               /* wraps */
	assert_int_equal(dcn_auth_fresh_take(&f, 11, 3), 1);
}

/* Incarnations are random and never 0: sixteen draws, all different
 * (a repeat would be a 1 in 2^25 chance). */
static void
test_epoch_new(void **state)
{
	uint32_t e[16];
	unsigned int i, j;

	(void)state;
	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		e[i] = dcn_auth_epoch_new();
		assert_int_not_equal(e[i], 0);
		for (j = 0; j < i; j++)
			assert_int_not_equal(e[i], e[j]);
	}
}

/* Two keyed neighbours' hello state, as the control thread keeps it: an
 * incarnation, a hello counter, and what each holds of the other. */
struct hnode {
	uint32_t epoch, seq;
	struct dcn_auth_peer peer;
};

#define WINDOW 8

/* The hello from sends now (its counter moved on). */
static struct dcn_auth_hello
hello_of(struct hnode *from)
{
	from->seq++;
	return (struct dcn_auth_hello){ from->epoch, from->seq,
					from->peer.heard_epoch, from->peer.heard_seq };
}

static enum dcn_auth_peer_result
deliver(struct hnode *to, const struct dcn_auth_hello *h)
{
	return dcn_auth_peer_take(&to->peer, h, to->epoch, to->seq, WINDOW);
}

/* Hello intervals (a hello each way each) until a takes b's incarnation;
 * fails past `most`. */
static unsigned int
rounds_until_taken(struct hnode *a, struct hnode *b, unsigned int most)
{
	unsigned int r;

	for (r = 1; r <= most; r++) {
		struct dcn_auth_hello ha = hello_of(a), hb = hello_of(b);

		deliver(b, &ha);
		if (deliver(a, &hb) == DCN_AUTH_PEER_TAKEN && a->peer.taken.epoch == b->epoch)
			return r;
	}
	fail_msg("b's incarnation %08x not taken in %u hellos", b->epoch, most);
	return 0;
}

/* b restarts with incarnation epoch: its counter and what it held of a
 * start over. */
static void
restart(struct hnode *b, uint32_t epoch)
{
	b->epoch = epoch;
	b->seq = 0;
	memset(&b->peer, 0, sizeof(b->peer));
}

/*
 * A keyed node restarting: its neighbour takes the new incarnation within
 * the miss time (three hello intervals), whether its epoch jumped by 2^31
 * and more or went back (the old time-based epochs' two failures), and
 * refuses every recording: of the dead incarnation (however old, one
 * that echoes an old life of its own included), and of the live one.
 */
static void
test_peer_restart(void **state)
{
	struct hnode a = { .epoch = 0x10000000u }, b = { .epoch = 0x20000000u };
	struct dcn_auth_hello old_b, b_now;
	uint32_t i;

	(void)state;
	/* Both starting: a's first hello echoes nothing; two intervals. */
	assert_true(rounds_until_taken(&a, &b, 3) <= 2);
	assert_true(rounds_until_taken(&b, &a, 3) <= 1);
	for (i = 0; i < 5; i++) {
		struct dcn_auth_hello ha = hello_of(&a), hb = hello_of(&b);

		assert_int_equal(deliver(&b, &ha), DCN_AUTH_PEER_TAKEN);
		assert_int_equal(deliver(&a, &hb), DCN_AUTH_PEER_TAKEN);
	}
	old_b = hello_of(&b);
	assert_int_equal(deliver(&a, &old_b), DCN_AUTH_PEER_TAKEN);
	/* The same again, and an older one of the live incarnation. */
	assert_int_equal(deliver(&a, &old_b), DCN_AUTH_PEER_REPLAYED);
	b_now = old_b;
	b_now.seq -= 3;
	assert_int_equal(deliver(&a, &b_now), DCN_AUTH_PEER_REPLAYED);

	/* b restarts with an epoch 2^31 + 5 on: taken within the miss
	 * time; the dead incarnation's recording is refused after. */
	restart(&b, b.epoch + 0x80000005u);
	assert_true(rounds_until_taken(&a, &b, 3) <= 3);
	/* Recorded a few hellos ago, its echo of a still recent: refused
	 * as the incarnation it is, which has been replaced. */
	assert_int_equal(deliver(&a, &old_b), DCN_AUTH_PEER_REPLAYED);
	assert_int_equal(a.peer.taken.epoch, b.epoch);
	/* ... and with its clock stepped back: an epoch below the last. */
	restart(&b, b.epoch - 1000);
	assert_true(rounds_until_taken(&a, &b, 3) <= 3);
	/* A recording of b made 2^31 hellos of a's ago and more, which
	 * echoes a's own incarnation: too old to prove anything. */
	old_b = hello_of(&b);
	old_b.epoch ^= 0x5a5a5a5au;       /* an incarnation since dead */
	a.seq += 0x80000000u;
	assert_int_equal(deliver(&a, &old_b), DCN_AUTH_PEER_UNPROVEN);
	old_b.echo_seq = a.seq + 3;        /* an echo from the future */
	assert_int_equal(deliver(&a, &old_b), DCN_AUTH_PEER_UNPROVEN);
	/* a restarts too: b's hellos that echo its old life prove nothing
	 * to the new one, however fresh b's own numbers. */
	b_now = hello_of(&b);
	restart(&a, a.epoch + 1);
	assert_int_equal(deliver(&a, &b_now), DCN_AUTH_PEER_UNPROVEN);
	assert_true(rounds_until_taken(&a, &b, 3) <= 2);
	/* What is echoed next is b's latest. */
	assert_int_equal(a.peer.heard_epoch, b.epoch);
}

/* Write text to a fresh file of the given mode; read it back as a key. */
static int
key_from_mode(const char *text, mode_t mode, uint8_t *key, char *why,
	      size_t whylen)
{
	char path[] = "/tmp/dcn-test-key-XXXXXX";
	int fd = mkstemp(path), ret;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
	ret = dcn_auth_read_key_file(path, key, why, whylen);
	unlink(path);
	return ret;
}

static int
key_from(const char *text, uint8_t *key, char *why, size_t whylen)
{
	return key_from_mode(text, 0600, key, why, whylen);
}

static void
test_key_files(void **state)
{
	const char *hex = "000102030405060708090a0b0c0d0e0f"
			  "101112131415161718191A1B1C1D1E1F";
	uint8_t key[DCN_AUTH_KEY_LEN];
	char text[256], why[256];
	unsigned int i;

	(void)state;
	snprintf(text, sizeof(text), "  %.32s\n%s\n", hex, hex + 32);
	assert_int_equal(key_from(text, key, why, sizeof(why)), 0);
	for (i = 0; i < DCN_AUTH_KEY_LEN; i++)
		assert_int_equal(key[i], i);
	snprintf(text, sizeof(text), "%.63s\n", hex);
	assert_int_equal(key_from(text, key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "fewer"));
	snprintf(text, sizeof(text), "%s0\n", hex);
	assert_int_equal(key_from(text, key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more"));
	snprintf(text, sizeof(text), "%.10sg%s", hex, hex + 11);
	assert_int_equal(key_from(text, key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "byte 11 is not a hex digit"));
	memset(text, '0', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	assert_int_equal(key_from(text, key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "longer than a key"));
	assert_int_equal(dcn_auth_read_key_file("/tmp", key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a regular file"));
	assert_int_equal(dcn_auth_read_key_file("/dev/zero", key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a regular file"));
	assert_int_equal(dcn_auth_read_key_file("/nonexistent/k", key, why,
						sizeof(why)), -1);
	assert_non_null(strstr(why, "No such file"));
	/* A key others can read or change, as ssh judges a private key; the
	 * owner alone reading it (0400) is fine. */
	assert_int_equal(key_from_mode(hex, 0644, key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "mode 0644 lets others read it: chmod 600"));
	assert_int_equal(key_from_mode(hex, 0620, key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "mode 0620 lets others change it"));
	assert_int_equal(key_from_mode(hex, 0606, key, why, sizeof(why)), -1);
	assert_int_equal(key_from_mode(hex, 0400, key, why, sizeof(why)), 0);
	/* A placeholder: every byte the same. */
	memset(text, '0', 64);
	text[64] = '\0';
	assert_int_equal(key_from(text, key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "every byte of the key is 0x00"));
	for (i = 0; i < 32; i++)
		memcpy(text + 2 * i, "ab", 2);
	assert_int_equal(key_from(text, key, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "every byte of the key is 0xab"));
	text[63] = 'c';
	assert_int_equal(key_from(text, key, why, sizeof(why)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_byte_counts),
		cmocka_unit_test(test_relayed_span),
		cmocka_unit_test(test_key_and_length),
		cmocka_unit_test(test_fresh),
		cmocka_unit_test(test_epoch_new),
		cmocka_unit_test(test_peer_restart),
		cmocka_unit_test(test_key_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
