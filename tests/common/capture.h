/* capture: a test's stderr into a buffer around a call, for checking the
 * one line a failure logs. capture_begin() sends stderr to a temporary file
 * (dup2), capture_end() restores it and leaves the text in capture_text.
 * Usage: capture_begin(); ok = load(...); capture_end();
 *        CHECK(strstr(capture_text, "x.chr: ..."));
 * One translation unit per test program, so the state is static here.
 */
#ifndef STRIDER_TESTS_CAPTURE_H
#define STRIDER_TESTS_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static char capture_text[8192];
static FILE *capture_file_;
static int capture_saved_fd_ = -1;

static inline void capture_begin(void)
{
    capture_text[0] = 0;
    fflush(stderr);
    capture_file_ = tmpfile();
    if (!capture_file_)
        return;
    capture_saved_fd_ = dup(fileno(stderr));
    dup2(fileno(capture_file_), fileno(stderr));
}

static inline void capture_end(void)
{
    if (!capture_file_)
        return;
    fflush(stderr);
    dup2(capture_saved_fd_, fileno(stderr));
    close(capture_saved_fd_);
    rewind(capture_file_);
    size_t n = fread(capture_text, 1, sizeof capture_text - 1, capture_file_);
    capture_text[n] = 0;
    fclose(capture_file_);
    capture_file_ = NULL;
}

#endif
