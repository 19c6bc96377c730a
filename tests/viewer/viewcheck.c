/* viewcheck: image checks and helpers for the character viewer tests.
 *   viewcheck coverage WITH.png WITHOUT.png MIN MAX
 *       fraction of pixels that differ (any channel by more than
 *       VIEWCHECK_DIFF_THRESHOLD) between a render with the character and
 *       the same render without it; fails unless MIN <= fraction <= MAX.
 *   viewcheck maxdiff A.png B.png MAX
 *       fails if any pixel's channel differs by more than MAX (0..255)
 *       between two renders that should match pixel for pixel; prints the
 *       worst pixel (x, y from the top left). A coverage fraction hides one
 *       wrong pixel (a NaN fragment renders black: a pinhole); this does not.
 *   viewcheck montage OUT.png COLUMNS SCALE IN.png...
 *       tiles the inputs (same size) COLUMNS per row, each downscaled by the
 *       integer SCALE (box filter), into one PNG (docs images).
 * Exit 0 on success, 1 on a failed check or unreadable file, 2 on usage. */
#include <stb_image.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Channel difference that counts as "the character is here" (0..255):
 * above dithering and shadow-map noise between two runs. */
#define VIEWCHECK_DIFF_THRESHOLD 12
enum { MONTAGE_MAX_INPUTS = 16, MONTAGE_MAX_SCALE = 8 };

static int usage(void)
{
    fprintf(stderr, "usage: viewcheck coverage WITH.png WITHOUT.png MIN MAX\n"
                    "       viewcheck maxdiff A.png B.png MAX\n"
                    "       viewcheck montage OUT.png COLUMNS SCALE IN.png...\n");
    return 2;
}

static int coverage(int argc, char **argv)
{
    if (argc != 6)
        return usage();
    int w1, h1, w2, h2, n;
    unsigned char *a = stbi_load(argv[2], &w1, &h1, &n, 3);
    unsigned char *b = stbi_load(argv[3], &w2, &h2, &n, 3);
    if (!a || !b || w1 != w2 || h1 != h2) {
        fprintf(stderr, "viewcheck: cannot load %s and %s as images of one size\n", argv[2], argv[3]);
        stbi_image_free(a);
        stbi_image_free(b);
        return 1;
    }
    long differ = 0, total = (long)w1 * h1;
    for (long i = 0; i < total; i++) {
        for (int c = 0; c < 3; c++) {
            if (abs((int)a[i * 3 + c] - (int)b[i * 3 + c]) > VIEWCHECK_DIFF_THRESHOLD) {
                differ++;
                break;
            }
        }
    }
    stbi_image_free(a);
    stbi_image_free(b);
    double frac = (double)differ / (double)total, lo = atof(argv[4]), hi = atof(argv[5]);
    printf("%s vs %s: %.4f of the pixels differ (allowed %.4f..%.4f)\n", argv[2], argv[3], frac, lo, hi);
    return frac >= lo && frac <= hi ? 0 : 1;
}

static int maxdiff(int argc, char **argv)
{
    if (argc != 5)
        return usage();
    char *end;
    long limit = strtol(argv[4], &end, 10);
    if (*end != '\0' || limit < 0 || limit > 255)
        return usage();
    int w1, h1, w2, h2, n;
    unsigned char *a = stbi_load(argv[2], &w1, &h1, &n, 3);
    unsigned char *b = stbi_load(argv[3], &w2, &h2, &n, 3);
    if (!a || !b || w1 != w2 || h1 != h2) {
        fprintf(stderr, "viewcheck: cannot load %s and %s as images of one size\n", argv[2], argv[3]);
        stbi_image_free(a);
        stbi_image_free(b);
        return 1;
    }
    long over = 0, total = (long)w1 * h1, worst_at = 0;
    int worst = 0;
    for (long i = 0; i < total; i++) {
        int d = 0;
        for (int c = 0; c < 3; c++) {
            int dc = abs((int)a[i * 3 + c] - (int)b[i * 3 + c]);
            d = dc > d ? dc : d;
        }
        over += d > limit;
        if (d > worst) {
            worst = d;
            worst_at = i;
        }
    }
    printf("%s vs %s: %ld pixels differ by more than %ld; worst %d at (%ld, %ld): (%d %d %d) vs (%d %d %d)\n", argv[2],
           argv[3], over, limit, worst, worst_at % w1, worst_at / w1, a[worst_at * 3], a[worst_at * 3 + 1],
           a[worst_at * 3 + 2], b[worst_at * 3], b[worst_at * 3 + 1], b[worst_at * 3 + 2]);
    stbi_image_free(a);
    stbi_image_free(b);
    return over == 0 ? 0 : 1;
}

static int montage(int argc, char **argv)
{
    if (argc < 6 || argc - 5 > MONTAGE_MAX_INPUTS)
        return usage();
    int cols = atoi(argv[3]), scale = atoi(argv[4]), count = argc - 5;
    if (cols < 1 || scale < 1 || scale > MONTAGE_MAX_SCALE)
        return usage();
    int rows = (count + cols - 1) / cols, w = 0, h = 0, tw = 0, th = 0;
    unsigned char *out = NULL;
    int rc = 0;
    for (int k = 0; k < count && rc == 0; k++) {
        int iw, ih, n;
        unsigned char *img = stbi_load(argv[5 + k], &iw, &ih, &n, 3);
        if (!img || (k > 0 && (iw != w || ih != h))) {
            fprintf(stderr, "viewcheck: %s: cannot load, or its size differs from the first image\n", argv[5 + k]);
            stbi_image_free(img);
            rc = 1;
            break;
        }
        if (k == 0) {
            w = iw;
            h = ih;
            tw = w / scale;
            th = h / scale;
            out = calloc((size_t)tw * cols * th * rows * 3, 1);
            if (!out) {
                stbi_image_free(img);
                return 1;
            }
        }
        int ox = (k % cols) * tw, oy = (k / cols) * th;
        for (int y = 0; y < th; y++) {
            for (int x = 0; x < tw; x++) {
                for (int c = 0; c < 3; c++) {
                    int sum = 0;
                    for (int dy = 0; dy < scale; dy++)
                        for (int dx = 0; dx < scale; dx++)
                            sum += img[((size_t)(y * scale + dy) * w + (size_t)(x * scale + dx)) * 3 + c];
                    out[((size_t)(oy + y) * tw * cols + (size_t)(ox + x)) * 3 + c] = (unsigned char)(sum /
                                                                                                     (scale * scale));
                }
            }
        }
        stbi_image_free(img);
    }
    if (rc == 0 && !stbi_write_png(argv[2], tw * cols, th * rows, 3, out, tw * cols * 3)) {
        fprintf(stderr, "viewcheck: %s: cannot write\n", argv[2]);
        rc = 1;
    }
    free(out);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "coverage") == 0)
        return coverage(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "maxdiff") == 0)
        return maxdiff(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "montage") == 0)
        return montage(argc, argv);
    return usage();
}
