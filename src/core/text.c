#include "core/text.h"

#include "core/log.h"

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

int text_nul_line(const char *text, size_t len, size_t *column)
{
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            line++;
            line_start = i + 1;
        } else if (text[i] == 0) {
            *column = i - line_start + 1;
            return line;
        }
    }
    return 0;
}

bool text_check_no_nul(const char *text, size_t len, const char *source)
{
    size_t column = 0;
    int line = text_nul_line(text, len, &column);
    if (line)
        log_error("%s:%d: NUL byte at column %zu; a text file holds none", source, line, column);
    return line == 0;
}
