/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DCN_AUTH_H
#define DCN_AUTH_H

/**
 * @file
 * Authenticated control frames: a fabric key shared by every node, and a
 * trailer on each hello, link-state announcement and credit frame that
 * proves a node holding the key wrote it, and when.
 *
 * A control frame is Ethernet | fabric header | payload (the header's
 * len bytes) | trailer. The trailer is 24 bytes: the writer's epoch (its
 * incarnation, 4 bytes), a sequence number (4 bytes) and a 16-byte tag,
 * keyed BLAKE2b (libsodium's crypto_generichash) over
 *
 *   bound MACs (12 bytes: Ethernet destination and source, or zeros) |
 *   fabric header | payload | epoch | sequence
 *
 * Hellos and credit frames are bound to the station that sent them and
 * the one they are for; a link-state announcement is not (relays pass
 * its origin's words on from their own MACs), and its hop count, which
 * each relay lowers, is read as zero.
 *
 * The trailer lies outside the header's len, so a node without a key
 * reads a keyed node's frames as before (and trusts them); a node with a
 * key refuses every control frame without a good tag.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCN_AUTH_KEY_LEN 32
#define DCN_AUTH_TAG_LEN 16
/** Trailer bytes: epoch, sequence, tag. */
#define DCN_AUTH_TRAILER_LEN (8 + DCN_AUTH_TAG_LEN)

/** Why a control frame was refused. */
enum dcn_auth_result {
	DCN_AUTH_OK = 0,
	DCN_AUTH_MISSING,  /**< too short to hold a trailer */
	DCN_AUTH_BAD_TAG,  /**< written without the key, or changed */
	DCN_AUTH_REPLAYED, /**< a good tag on words already heard */
};

/** A fabric key, ready to sign with (opaque; from dcn_auth_create). */
struct dcn_auth;

/** What a frame's signer binds into its tag. */
struct dcn_auth_span {
	int bind_macs;     /**< 1: the Ethernet addresses are covered */
	int zero_at;       /**< offset in the payload read as 0; -1: none */
};

/**
 * @return a signer for key, or NULL (ENOMEM, or libsodium could not
 *         start).
 */
struct dcn_auth *dcn_auth_create(const uint8_t key[DCN_AUTH_KEY_LEN]);
void dcn_auth_free(struct dcn_auth *a);

/**
 * Read a key file: 64 hexadecimal digits (32 bytes), blanks and one
 * trailing newline allowed, nothing else.
 * @param why  the reason on failure
 * @return 0, or -1.
 */
int dcn_auth_read_key_file(const char *path, uint8_t key[DCN_AUTH_KEY_LEN],
			   char *why, size_t whylen);

/**
 * Sign a control frame: write the trailer at frame + 34 + payload_len
 * (the caller has room for it).
 *
 * @param frame        Ethernet header first
 * @param payload_len  the fabric header's len
 */
void dcn_auth_sign(const struct dcn_auth *a, uint8_t *frame,
		   uint32_t payload_len, const struct dcn_auth_span *span,
		   uint32_t epoch, uint32_t seq);

/**
 * Check a control frame's tag.
 *
 * @param frame_len    the bytes received
 * @param epoch, seq   the trailer's, when the tag is good
 * @return DCN_AUTH_OK, DCN_AUTH_MISSING or DCN_AUTH_BAD_TAG.
 */
enum dcn_auth_result dcn_auth_check(const struct dcn_auth *a,
				    const uint8_t *frame, uint32_t frame_len,
				    uint32_t payload_len,
				    const struct dcn_auth_span *span,
				    uint32_t *epoch, uint32_t *seq);

/**
 * Replay protection: the newest (epoch, sequence) taken from one writer.
 * Epochs are times (dcn_auth_epoch_now): a later incarnation has a later
 * one. Both compare in serial arithmetic (RFC 1982), so either may wrap.
 */
struct dcn_auth_fresh {
	uint32_t epoch;
	uint32_t seq;
	int known;
};

/**
 * Take (epoch, seq) if it is newer than what f has seen: a later epoch,
 * or the same epoch and a later sequence.
 * @return 1 taken, 0 replayed (f unchanged).
 */
int dcn_auth_fresh_take(struct dcn_auth_fresh *f, uint32_t epoch, uint32_t seq);

/**
 * An incarnation number for a process starting now: the wall clock in
 * units of 10 ms (wraps every 497 days; serial arithmetic compares two
 * within half of that). A node's clock must not step back across its
 * restarts, or its neighbours refuse it as a replay until it catches up.
 */
uint32_t dcn_auth_epoch_now(void);

/** @return "missing", "bad_tag" or "replayed". */
const char *dcn_auth_result_name(enum dcn_auth_result r);

#ifdef __cplusplus
}
#endif

#endif /* DCN_AUTH_H */
