/* dl_iterate_phdr and RTLD_NODELETE are GNU extensions. */
#define _GNU_SOURCE
#include "app/platform.h"

#include "core/log.h"
#include "render/gfx_probe.h"

#include <stdio.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>

static int pin_object(struct dl_phdr_info *info, size_t size, void *user)
{
    (void)size;
    (void)user;
    if (info->dlpi_name && info->dlpi_name[0])
        dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
    return 0;
}

/* SDL_Quit unloads the GL driver; allocations the driver keeps for the whole
 * process then reach LeakSanitizer with no module name, and no suppression
 * can match them. Under ASan, keep every shared object loaded until exit so
 * tests/lsan.supp can name the driver libraries. */
static void pin_loaded_libraries(void) { dl_iterate_phdr(pin_object, NULL); }
#else
static void pin_loaded_libraries(void) {}
#endif

enum { GL_WANT_MAJOR = 4, GL_WANT_MINOR = 5, GL_MIN_MINOR = 3 };

static SDL_GLContext create_context(SDL_Window *w, int major, int minor, bool debug)
{
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, major);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, minor);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, debug ? SDL_GL_CONTEXT_DEBUG_FLAG : 0);
    return SDL_GL_CreateContext(w);
}

bool platform_init(platform_t *p, const platform_desc_t *desc)
{
    memset(p, 0, sizeof *p);
    /* Controllers are initialised here too so hot-plug events arrive. */
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER | SDL_INIT_EVENTS) != 0) {
        SDL_snprintf(p->error, sizeof p->error, "SDL_Init(video, gamecontroller) failed: %s", SDL_GetError());
        log_error("%s", p->error);
        return false;
    }
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    /* A 24-bit depth buffer: without MSAA the renderer draws the frame
     * straight into the window (render/gfx.c), with no target of its own to
     * copy from (at 720x480 on llvmpipe: 1.4 MB and a 1.3 ms copy less). */
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    SDL_GL_SetAttribute(SDL_GL_RED_SIZE, 8);
    SDL_GL_SetAttribute(SDL_GL_GREEN_SIZE, 8);
    SDL_GL_SetAttribute(SDL_GL_BLUE_SIZE, 8);

    Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI;
    if (desc->hidden)
        flags |= SDL_WINDOW_HIDDEN;
    if (desc->fullscreen)
        flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
    p->window = SDL_CreateWindow(desc->title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, desc->width, desc->height,
                                 flags);
    if (!p->window) {
        SDL_snprintf(p->error, sizeof p->error, "cannot create a %dx%d OpenGL window: %s", desc->width, desc->height,
                     SDL_GetError());
        log_error("%s", p->error);
        SDL_Quit();
        return false;
    }
    p->hidden = desc->hidden;
    p->fullscreen = desc->fullscreen;

    /* Ask for 4.5, then accept 4.4 and 4.3 (SSBOs in vertex shaders need 4.3). */
    for (int minor = GL_WANT_MINOR; minor >= GL_MIN_MINOR && !p->gl; minor--)
        p->gl = create_context(p->window, GL_WANT_MAJOR, minor, desc->debug_context);
    if (!p->gl) {
        /* Find out what the driver does offer, to say so in the error. */
        SDL_GL_ResetAttributes();
        SDL_GLContext any = SDL_GL_CreateContext(p->window);
        char found[256] = "no OpenGL context at all";
        if (any) {
            SDL_GL_MakeCurrent(p->window, any);
            char version[200];
            if (gfx_probe_version_string(version, sizeof version))
                SDL_snprintf(found, sizeof found, "only OpenGL %s", version);
            pin_loaded_libraries();
            SDL_GL_DeleteContext(any);
        }
        SDL_snprintf(p->error, sizeof p->error, "OpenGL 4.3 core or newer required (asked for 4.5 core), found %s",
                     found);
        log_error("%s", p->error);
        SDL_DestroyWindow(p->window);
        SDL_Quit();
        return false;
    }
    SDL_GL_GetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, &p->gl_major);
    SDL_GL_GetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, &p->gl_minor);
    SDL_GL_MakeCurrent(p->window, p->gl);
    pin_loaded_libraries();
    platform_set_vsync(p, desc->vsync);
    return true;
}

void platform_shutdown(platform_t *p)
{
    if (p->gl)
        SDL_GL_DeleteContext(p->gl);
    if (p->window)
        SDL_DestroyWindow(p->window);
    p->gl = NULL;
    p->window = NULL;
    SDL_Quit();
}

void platform_swap(platform_t *p) { SDL_GL_SwapWindow(p->window); }

void platform_drawable_size(const platform_t *p, int *w, int *h) { SDL_GL_GetDrawableSize(p->window, w, h); }

bool platform_set_vsync(platform_t *p, bool on)
{
    /* Prefer adaptive vsync (late frames tear instead of halving the rate). */
    int rc = on ? SDL_GL_SetSwapInterval(-1) : SDL_GL_SetSwapInterval(0);
    if (rc != 0 && on)
        rc = SDL_GL_SetSwapInterval(1);
    p->vsync = on && rc == 0;
    return rc == 0;
}

void platform_set_fullscreen(platform_t *p, bool on)
{
    if (SDL_SetWindowFullscreen(p->window, on ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0) == 0)
        p->fullscreen = on;
    else
        log_warn("fullscreen toggle failed: %s", SDL_GetError());
}

void platform_handle_event(platform_t *p, const SDL_Event *ev)
{
    if (ev->type != SDL_WINDOWEVENT)
        return;
    switch (ev->window.event) {
    case SDL_WINDOWEVENT_MINIMIZED: p->minimized = true; break;
    case SDL_WINDOWEVENT_RESTORED:
    case SDL_WINDOWEVENT_MAXIMIZED:
    case SDL_WINDOWEVENT_SHOWN: p->minimized = false; break;
    default: break;
    }
}

double platform_now_s(void)
{
    static double inv_freq = 0.0;
    if (inv_freq == 0.0)
        inv_freq = 1.0 / (double)SDL_GetPerformanceFrequency();
    return (double)SDL_GetPerformanceCounter() * inv_freq;
}

void platform_sleep_ms(unsigned ms) { SDL_Delay(ms); }

unsigned long long platform_peak_rss_bytes(void)
{
    unsigned long long kib = 0;
#if defined(__linux__)
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %llu kB", &kib) == 1)
            break;
    fclose(f);
#endif
    return kib * 1024ull;
}
