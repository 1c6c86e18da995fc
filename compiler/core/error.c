/*
 * error.c - filling and formatting optinc_error records (see error.h).
 *
 * Why messages are escaped here.  A message quotes what it refuses (a
 * token, a header value, a file name), and that may hold bytes a terminal
 * does not show as text: a control character, a byte that is not UTF-8, or
 * an invisible character such as the byte-order mark.  Printed raw they
 * make the message lie ("instance '*' is not a name" for a name that starts
 * with an invisible mark) or move the cursor.  So every message, and the
 * file name when it is printed, has such bytes written out, in one place
 * for all readers: \xHH for a control byte or a byte that is not UTF-8,
 * <U+XXXX> for an invisible character; other UTF-8 (a name in Greek) stays
 * as it is.  What comes out is printable, so a message that quotes another
 * is escaped only once.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "optinc/error.h"

/* The code point of the UTF-8 sequence at s (at most n bytes) and its length
 * in *len, or -1 when s does not start one (overlong forms and surrogates
 * included). */
static long utf8_decode(const unsigned char *s, size_t n, size_t *len)
{
    static const long min[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t k = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
    if (!k || s[0] > 0xf4 || k > n)
        return -1;
    long cp = s[0] & (0x7f >> k);
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return -1;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    *len = k;
    return cp;
}

/* Characters that show as nothing: C1 controls, the zero-width and
 * direction marks, the byte-order mark. */
static int invisible(long cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f)
           || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) || cp == 0xfeff;
}

/* src into dst (size bytes, always terminated) with what a terminal does
 * not show written out; a piece that does not fit whole is left out. */
static void escape(const char *src, char *dst, size_t size)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t n = strlen(src), o = 0;
    for (size_t i = 0; i < n;) {
        char piece[16];
        size_t len = 1, plen;
        long cp = s[i] < 0x80 ? s[i] : utf8_decode(s + i, n - i, &len);
        if (cp < 0 || cp < 0x20 || cp == 0x7f) {
            plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", s[i]);
            len = 1;
        } else if (invisible(cp)) {
            plen = (size_t)snprintf(piece, sizeof piece, "<U+%04lX>", cp);
        } else {
            memcpy(piece, s + i, len);
            plen = len;
        }
        if (o + plen >= size)
            break;
        memcpy(dst + o, piece, plen);
        o += plen;
        i += len;
    }
    dst[o] = '\0';
}

optinc_status optinc_fail(optinc_error *err, optinc_status status, const char *file,
                          int line, int column, const char *fmt, ...)
{
    if (!err)
        return status;
    char raw[sizeof err->message];
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    escape(raw, err->message, sizeof err->message);
    return status;
}

char *optinc_error_format(const optinc_error *err, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    if (err->file[0]) {
        char file[4 * sizeof err->file];
        escape(err->file, file, sizeof file);
        n += snprintf(buf + n, size - n, "%s:", file);
        if (err->line > 0 && n < size)
            n += snprintf(buf + n, size - n, "%d:", err->line);
        if (err->line > 0 && err->column > 0 && n < size)
            n += snprintf(buf + n, size - n, "%d:", err->column);
        if (n < size)
            n += snprintf(buf + n, size - n, " ");
    }
    if (n < size)
        snprintf(buf + n, size - n, "error: %s", err->message);
    return buf;
}

void optinc_error_clear(optinc_error *err)
{
    memset(err, 0, sizeof *err);
}
