/* gl_test: the hidden window and OpenGL 4.5 core context that a GL test
 * draws in (under Xvfb with Mesa llvmpipe in CI), with the renderer started,
 * and the pixel comparison the render tests share.
 *
 * Call order: gl_test_open() -> the test's gfx_* work -> gl_test_close().
 * Does NOT call SDL_Quit(): that closes the X display, which unloads Mesa's
 * driver before LeakSanitizer runs at exit; the driver's own leaks then have
 * no module name and tests/lsan.supp cannot suppress them. */
#ifndef STRIDER_TESTS_GL_TEST_H
#define STRIDER_TESTS_GL_TEST_H

#include "render/gfx.h"

#include <SDL2/SDL.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct gl_test_t {
    SDL_Window *win;
    SDL_GLContext ctx;
} gl_test_t;

/* Opens a hidden W x H window named TITLE with a 4.5 core context and runs
 * gfx_init(DESC); on failure prints one "FAIL: ..." line and returns false. */
static inline bool gl_test_open(gl_test_t *t, const char *title, int w, int h, const gfx_desc_t *desc)
{
    *t = (gl_test_t){0};
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "FAIL: SDL_Init: %s\n", SDL_GetError());
        return false;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 5);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24); /* as the game's window (app/platform.c) */
    t->win = SDL_CreateWindow(title, SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, w, h,
                              SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
    t->ctx = t->win ? SDL_GL_CreateContext(t->win) : NULL;
    if (!t->ctx) {
        fprintf(stderr, "FAIL: OpenGL 4.5 core context: %s\n", SDL_GetError());
        return false;
    }
    if (!gfx_init(desc)) {
        fprintf(stderr, "FAIL: gfx_init\n");
        return false;
    }
    return true;
}

static inline void gl_test_close(gl_test_t *t)
{
    gfx_shutdown();
    SDL_GL_DeleteContext(t->ctx);
    SDL_DestroyWindow(t->win);
    *t = (gl_test_t){0};
}

/* Compares two RGB images of PIXELS pixels: returns how many differ by more
 * than TOL (0..255) in some channel, and the largest channel difference. */
static inline long gl_test_count_diff(const uint8_t *a, const uint8_t *b, long pixels, int tol, int *max_diff)
{
    long n = 0;
    *max_diff = 0;
    for (long i = 0; i < pixels; i++) {
        int d = 0;
        for (int c = 0; c < 3; c++) {
            int e = abs((int)a[3 * i + c] - (int)b[3 * i + c]);
            d = e > d ? e : d;
        }
        *max_diff = d > *max_diff ? d : *max_diff;
        n += d > tol;
    }
    return n;
}

#endif
