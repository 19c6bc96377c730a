#include "core/text.h"

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int text_tokenize(char *line, char **tok, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (*p == 0)
            break;
        if (n == max)
            return max + 1;
        tok[n++] = p;
        while (*p && !is_blank(*p))
            p++;
        if (*p)
            *p++ = 0;
    }
    return n;
}
