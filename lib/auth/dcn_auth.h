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
 * Replay protection within one incarnation: the newest sequence taken
 * from one writer of a known epoch. Epochs are drawn at random
 * (dcn_auth_epoch_new) and only compared for equality; sequences
 * compare in serial arithmetic (RFC 1982), so they may wrap.
 */
struct dcn_auth_fresh {
	uint32_t epoch;
	uint32_t seq;
	int known;
};

/**
 * Take (epoch, seq) unless it is of f's epoch and no newer than what f
 * took: a frame of another epoch starts the count over. The caller must
 * know that epoch to be the writer's current one (for a credit frame:
 * the incarnation its hellos proved, dcn_auth_peer_take).
 * @return 1 taken, 0 replayed (f unchanged).
 */
int dcn_auth_fresh_take(struct dcn_auth_fresh *f, uint32_t epoch, uint32_t seq);

/**
 * A neighbour's hellos: its incarnation, proven fresh by this node's own
 * challenge. Each hello echoes the (epoch, seq) of the last hello its
 * sender heard from the receiver; a hello of an incarnation other than
 * the one taken is taken only when it echoes the receiver's own epoch
 * and one of its last `window` hello sequences, so it was written after
 * the receiver's recent hellos: no recording, however old, and no clock,
 * however set, can pass for a new incarnation. An incarnation replaced
 * never comes back (epochs are random), so its words are refused
 * outright, even from within the window.
 */
#define DCN_AUTH_PEER_RETIRED 4

struct dcn_auth_peer {
	struct dcn_auth_fresh taken; /**< the incarnation taken, its newest */
	uint32_t retired[DCN_AUTH_PEER_RETIRED]; /**< replaced ones (0: none) */
	uint32_t heard_epoch;        /**< newest heard (good tag), to echo */
	uint32_t heard_seq;
};

/** What a hello says of freshness. */
struct dcn_auth_hello {
	uint32_t epoch, seq;          /**< the writer's, from the trailer */
	uint32_t echo_epoch, echo_seq; /**< what it heard of the receiver */
};

/** dcn_auth_peer_take's verdicts. */
enum dcn_auth_peer_result {
	DCN_AUTH_PEER_TAKEN = 0,   /**< fresh: the neighbour is alive */
	DCN_AUTH_PEER_REPLAYED,    /**< its incarnation's, and not newer; or
				    *   an incarnation since replaced */
	DCN_AUTH_PEER_UNPROVEN,    /**< another incarnation that does not
				    *   yet echo the receiver's recent hellos
				    *   (a restart's first hellos, or a
				    *   recording) */
};

/**
 * Weigh a hello with a good tag from the neighbour p keeps.
 * @param own_epoch, own_seq  the receiver's incarnation and the sequence
 *                            of its latest hello
 * @param window              how many of its latest hellos an echo may
 *                            name
 * A hello taken, or of another incarnation, becomes what the receiver
 * echoes next.
 */
enum dcn_auth_peer_result dcn_auth_peer_take(struct dcn_auth_peer *p,
					     const struct dcn_auth_hello *h,
					     uint32_t own_epoch, uint32_t own_seq,
					     uint32_t window);

/**
 * An incarnation number for a process starting now: 32 random bits,
 * never 0. Not a time: incarnations are told apart, never ordered, so
 * neither a clock stepped back nor a long uptime can make one look old.
 * @return 0 when the system has no randomness to give (not expected).
 */
uint32_t dcn_auth_epoch_new(void);

/** @return "missing", "bad_tag" or "replayed". */
const char *dcn_auth_result_name(enum dcn_auth_result r);

#ifdef __cplusplus
}
#endif

#endif /* DCN_AUTH_H */
