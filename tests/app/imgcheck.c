/* imgcheck: does a screenshot show a lit scene rather than a blank or
 * uniform image? Used by the GL tests.
 *   imgcheck FILE.png [--min-stddev S]
 * Checks: the expected size is non-trivial; luminance varies (stddev);
 * the top band (sky) and the bottom band (ground) differ; few pixels are
 * pure black (unlit or failed draws); there is colour, not only grey. */
#include <math.h>
#include <stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: imgcheck FILE.png [--min-stddev S]\n");
        return 2;
    }
    double min_stddev = 12.0;
    if (argc == 4 && strcmp(argv[2], "--min-stddev") == 0)
        min_stddev = atof(argv[3]);
    int w, h, n;
    unsigned char *px = stbi_load(argv[1], &w, &h, &n, 3);
    if (!px) {
        fprintf(stderr, "%s: cannot load: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    double sum = 0, sum2 = 0, top = 0, bottom = 0, chroma = 0;
    long black = 0, top_n = 0, bottom_n = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const unsigned char *p = px + 3 * ((size_t)y * w + x);
            double l = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
            sum += l;
            sum2 += l * l;
            int mx = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
            int mn = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
            chroma += mx - mn;
            if (mx < 4)
                black++;
            if (y < h / 8) {
                top += l;
                top_n++;
            } else if (y > h * 6 / 10) {
                bottom += l;
                bottom_n++;
            }
        }
    }
    stbi_image_free(px);
    double count = (double)w * h;
    double mean = sum / count;
    double stddev = sqrt(fmax(0.0, sum2 / count - mean * mean));
    double sky = top / (double)top_n, ground = bottom / (double)bottom_n;
    double black_frac = black / count, mean_chroma = chroma / count;
    printf("%s: %dx%d mean %.1f stddev %.1f sky %.1f ground %.1f black %.3f chroma %.1f\n", argv[1], w, h, mean, stddev,
           sky, ground, black_frac, mean_chroma);
    int bad = 0;
    if (w < 64 || h < 64) {
        fprintf(stderr, "%s: image too small\n", argv[1]);
        bad = 1;
    }
    if (stddev < min_stddev) {
        fprintf(stderr, "%s: nearly uniform image (stddev %.1f < %.1f)\n", argv[1], stddev, min_stddev);
        bad = 1;
    }
    if (fabs(sky - ground) < 8.0) {
        fprintf(stderr, "%s: sky and ground look the same (%.1f vs %.1f)\n", argv[1], sky, ground);
        bad = 1;
    }
    if (black_frac > 0.2) {
        fprintf(stderr, "%s: %.0f%% of the pixels are black\n", argv[1], black_frac * 100.0);
        bad = 1;
    }
    if (mean_chroma < 5.0) {
        fprintf(stderr, "%s: no colour (mean chroma %.1f)\n", argv[1], mean_chroma);
        bad = 1;
    }
    if (mean < 30.0 || mean > 235.0) {
        fprintf(stderr, "%s: too dark or too bright (mean %.1f)\n", argv[1], mean);
        bad = 1;
    }
    return bad;
}
