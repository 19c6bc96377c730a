/* text: small helpers shared by the line-based text loaders (skeleton,
 * levels, scripts, joint maps, BVH): splitting a line into blank-separated
 * fields in place, and finding a NUL byte (a C string would end there and
 * silently drop the rest of the line, so text files may not hold one).
 * Does NOT: allocate, or know any file format.
 */
#ifndef STRIDER_CORE_TEXT_H
#define STRIDER_CORE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Splits LINE in place at blanks (space, tab, CR) and points tok[] at the
 * fields. Returns the field count, or max + 1 when there are more fields
 * than fit, so the caller can report the line. */
int text_tokenize(char *line, char **tok, int max);

/* The 1-based line of the first NUL byte in TEXT[0..LEN), with its 1-based
 * column in *COLUMN; 0 when there is none. */
int text_nul_line(const char *text, size_t len, size_t *column);
/* False, after one logged line naming SOURCE, the line and the column, when
 * TEXT[0..LEN) holds a NUL byte (text after it would be silently ignored). */
bool text_check_no_nul(const char *text, size_t len, const char *source);

#endif
