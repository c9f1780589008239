/*
 * hash.c: the message digests behind crypto.createHash and createHmac:
 * MD5 (RFC 1321), SHA-1 (FIPS 180-4), SHA-256 and SHA-512 (FIPS 180-4).
 *
 * One job: hashing bytes. The prelude (section_node.js) keeps a hash's
 * state in a Uint8Array it owns and hands it to these natives:
 *
 *   hashInit(alg)                 -> Uint8Array state (alg: "md5", "sha1",
 *                                    "sha256", "sha512"; anything else
 *                                    returns undefined)
 *   hashUpdate(state, bytes)      -> undefined; bytes is a Uint8Array
 *   hashFinal(state)              -> Uint8Array digest; the state is spent
 *
 * The state's bytes are copied into a local struct and back around each
 * call, so nothing here depends on how QuickJS aligns an ArrayBuffer, and
 * no pointer into JS memory is kept between calls. Nothing calls the host.
 * Tested against the standard vectors in tests/test_js_node_habits.py.
 */
#include <stdint.h>
#include <string.h>

#include "amla.h"

enum { ALG_MD5 = 1, ALG_SHA1, ALG_SHA256, ALG_SHA512 };

/* One state layout for every algorithm: the chaining words (eight 64-bit
 * words hold any of them), the bytes not yet hashed and the total
 * length. */
struct hash_state {
    uint32_t alg;
    uint32_t buffered;
    uint64_t length; /* bytes hashed so far */
    uint32_t h32[8];
    uint64_t h64[8];
    uint8_t block[128];
};

static uint32_t rol32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
static uint32_t ror32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
static uint64_t ror64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t load_be64(const uint8_t *p)
{
    return (uint64_t)load_be32(p) << 32 | load_be32(p + 4);
}

/* ---- MD5 ----------------------------------------------------------------- */

/* Per-round shift amounts and the sine-derived constants of RFC 1321. */
static const uint8_t md5_shift[64] = {
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static const uint32_t md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static void md5_block(uint32_t h[4], const uint8_t *p)
{
    uint32_t m[16];
    for (int i = 0; i < 16; i++)
        m[i] = load_le32(p + 4 * i);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g;
        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) % 16;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) % 16;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) % 16;
        }
        uint32_t t = d;
        d = c;
        c = b;
        b = b + rol32(a + f + md5_k[i] + m[g], md5_shift[i]);
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
}

/* ---- SHA-1 --------------------------------------------------------------- */

static void sha1_block(uint32_t h[5], const uint8_t *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = load_be32(p + 4 * i);
    for (int i = 16; i < 80; i++)
        w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        uint32_t t = rol32(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol32(b, 30);
        b = a;
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

/* ---- SHA-256 ------------------------------------------------------------- */

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void sha256_block(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = load_be32(p + 4 * i);
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t S1 = ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = hh + S1 + ch + sha256_k[i] + w[i];
        uint32_t S0 = ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

/* ---- SHA-512 ------------------------------------------------------------- */

static const uint64_t sha512_k[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
    0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
    0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
    0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
    0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
    0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
    0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
    0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
    0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
    0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
    0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
    0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
    0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
    0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};

static void sha512_block(uint64_t h[8], const uint8_t *p)
{
    uint64_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = load_be64(p + 8 * i);
    for (int i = 16; i < 80; i++) {
        uint64_t s0 = ror64(w[i - 15], 1) ^ ror64(w[i - 15], 8) ^ (w[i - 15] >> 7);
        uint64_t s1 = ror64(w[i - 2], 19) ^ ror64(w[i - 2], 61) ^ (w[i - 2] >> 6);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 80; i++) {
        uint64_t S1 = ror64(e, 14) ^ ror64(e, 18) ^ ror64(e, 41);
        uint64_t ch = (e & f) ^ (~e & g);
        uint64_t t1 = hh + S1 + ch + sha512_k[i] + w[i];
        uint64_t S0 = ror64(a, 28) ^ ror64(a, 34) ^ ror64(a, 39);
        uint64_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint64_t t2 = S0 + maj;
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

/* ---- the common streaming frame ----------------------------------------- */

static size_t block_size(uint32_t alg) { return alg == ALG_SHA512 ? 128 : 64; }

static void compress(struct hash_state *s, const uint8_t *block)
{
    switch (s->alg) {
    case ALG_MD5:
        md5_block(s->h32, block);
        break;
    case ALG_SHA1:
        sha1_block(s->h32, block);
        break;
    case ALG_SHA256:
        sha256_block(s->h32, block);
        break;
    default:
        sha512_block(s->h64, block);
        break;
    }
}

static void hash_init(struct hash_state *s, uint32_t alg)
{
    static const uint32_t md5_iv[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    static const uint32_t sha1_iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
    static const uint32_t sha256_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    static const uint64_t sha512_iv[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                                          0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                                          0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
    memset(s, 0, sizeof *s);
    s->alg = alg;
    switch (alg) {
    case ALG_MD5:
        memcpy(s->h32, md5_iv, sizeof md5_iv);
        break;
    case ALG_SHA1:
        memcpy(s->h32, sha1_iv, sizeof sha1_iv);
        break;
    case ALG_SHA256:
        memcpy(s->h32, sha256_iv, sizeof sha256_iv);
        break;
    default:
        memcpy(s->h64, sha512_iv, sizeof sha512_iv);
        break;
    }
}

static void hash_update(struct hash_state *s, const uint8_t *p, size_t n)
{
    size_t bs = block_size(s->alg);
    s->length += n;
    if (s->buffered) {
        size_t take = bs - s->buffered;
        if (take > n)
            take = n;
        memcpy(s->block + s->buffered, p, take);
        s->buffered += (uint32_t)take;
        p += take;
        n -= take;
        if (s->buffered < bs)
            return;
        compress(s, s->block);
        s->buffered = 0;
    }
    for (; n >= bs; p += bs, n -= bs)
        compress(s, p);
    memcpy(s->block, p, n);
    s->buffered = (uint32_t)n;
}

/* hash_final pads the message (a 1 bit, zeros, the bit length: little
 * endian for MD5, big endian otherwise, 128 bits for SHA-512) and writes
 * the digest; it returns the digest's length. */
static size_t hash_final(struct hash_state *s, uint8_t out[64])
{
    size_t bs = block_size(s->alg);
    size_t lenbytes = s->alg == ALG_SHA512 ? 16 : 8;
    uint64_t bits = s->length * 8;
    uint8_t pad[128 + 16];
    size_t padlen = bs - (s->buffered % bs);
    if (padlen < lenbytes + 1)
        padlen += bs;
    memset(pad, 0, sizeof pad);
    pad[0] = 0x80;
    for (int i = 0; i < 8; i++) {
        uint8_t byte = (uint8_t)(bits >> (8 * i));
        if (s->alg == ALG_MD5)
            pad[padlen - 8 + i] = byte;
        else
            pad[padlen - 1 - i] = byte;
    }
    uint64_t length = s->length;
    hash_update(s, pad, padlen);
    s->length = length;
    size_t n;
    switch (s->alg) {
    case ALG_MD5:
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                out[4 * i + j] = (uint8_t)(s->h32[i] >> (8 * j));
        return 16;
    case ALG_SHA1:
    case ALG_SHA256:
        n = s->alg == ALG_SHA1 ? 5 : 8;
        for (size_t i = 0; i < n; i++)
            for (int j = 0; j < 4; j++)
                out[4 * i + j] = (uint8_t)(s->h32[i] >> (24 - 8 * j));
        return 4 * n;
    default:
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                out[8 * i + j] = (uint8_t)(s->h64[i] >> (56 - 8 * j));
        return 64;
    }
}

/* ---- natives ------------------------------------------------------------- */

/* state_in copies the state a Uint8Array holds; -1 (with a TypeError) when
 * it is not one hashInit made. */
static int state_in(JSContext *ctx, JSValueConst v, struct hash_state *s)
{
    size_t len;
    uint8_t *p = amla_bytes(ctx, v, &len);
    if (!p)
        return -1;
    if (len != sizeof *s) {
        JS_ThrowTypeError(ctx, "not a hash state");
        return -1;
    }
    memcpy(s, p, sizeof *s);
    if (s->alg < ALG_MD5 || s->alg > ALG_SHA512 || s->buffered >= block_size(s->alg)) {
        JS_ThrowTypeError(ctx, "not a hash state");
        return -1;
    }
    return 0;
}

static void state_out(JSContext *ctx, JSValueConst v, const struct hash_state *s)
{
    size_t len;
    uint8_t *p = amla_bytes(ctx, v, &len);
    if (p && len == sizeof *s)
        memcpy(p, s, sizeof *s);
}

static JSValue js_hash_init(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    const char *name = JS_ToCString(ctx, argv[0]);
    if (!name)
        return JS_EXCEPTION;
    uint32_t alg = 0;
    if (strcmp(name, "md5") == 0)
        alg = ALG_MD5;
    else if (strcmp(name, "sha1") == 0)
        alg = ALG_SHA1;
    else if (strcmp(name, "sha256") == 0)
        alg = ALG_SHA256;
    else if (strcmp(name, "sha512") == 0)
        alg = ALG_SHA512;
    JS_FreeCString(ctx, name);
    if (!alg)
        return JS_UNDEFINED;
    struct hash_state s;
    hash_init(&s, alg);
    return amla_new_bytes(ctx, (const uint8_t *)&s, sizeof s);
}

static JSValue js_hash_update(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    struct hash_state s;
    if (state_in(ctx, argv[0], &s) < 0)
        return JS_EXCEPTION;
    size_t n;
    const uint8_t *p = amla_bytes(ctx, argv[1], &n);
    if (!p)
        return JS_EXCEPTION;
    hash_update(&s, p, n);
    state_out(ctx, argv[0], &s);
    return JS_UNDEFINED;
}

static JSValue js_hash_final(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    struct hash_state s;
    if (state_in(ctx, argv[0], &s) < 0)
        return JS_EXCEPTION;
    uint8_t out[64];
    size_t n = hash_final(&s, out);
    state_out(ctx, argv[0], &s);
    return amla_new_bytes(ctx, out, n);
}

int amla_add_hash_natives(JSContext *ctx, JSValueConst native)
{
    if (amla_set_func(ctx, native, "hashInit", js_hash_init, 1) ||
        amla_set_func(ctx, native, "hashUpdate", js_hash_update, 2) ||
        amla_set_func(ctx, native, "hashFinal", js_hash_final, 1))
        return -1;
    return 0;
}
