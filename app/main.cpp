// Placeholder entry point; the CLI is being written in app/.
#include <cstdio>
int main() { std::puts("accsum: CLI under construction"); return 0; }
