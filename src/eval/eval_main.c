/* strider-eval: the motion evaluation on its own, a program that links no
 * SDL and no GL (tests/structure checks its link line), for headless
 * machines and CI:
 *   strider-eval motion ...      the same as `strider eval motion ...`
 */
#include "eval/motion_eval.h"

int main(int argc, char **argv) { return eval_main(argc, argv); }
