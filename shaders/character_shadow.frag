/* character_shadow.frag: depth only; the colour output is unused. */
void main() {}
