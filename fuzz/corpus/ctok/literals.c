#define X(a, b) \
	a##b /* continued */
static const char *s = u8"a\"b" "c" L"w";
int c = '\'' + L'\n' + u'x';
double d = 0x1.8p23 + .5e-3f + 10ull; // trailing
int *p = &a->b; x <<= 2; y ... @ \ ;
/* unterminated
