/* text: small helpers shared by the line-based text loaders (skeleton,
 * levels): splitting a line into blank-separated fields in place.
 * Does NOT: allocate, or know any file format.
 */
#ifndef STRIDER_CORE_TEXT_H
#define STRIDER_CORE_TEXT_H

/* Splits LINE in place at blanks (space, tab, CR) and points tok[] at the
 * fields. Returns the field count, or max + 1 when there are more fields
 * than fit, so the caller can report the line. */
int text_tokenize(char *line, char **tok, int max);

#endif
