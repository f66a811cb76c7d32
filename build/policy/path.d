build/policy/path.o: policy/path.c policy/internal.h policy/policy.h
policy/internal.h:
policy/policy.h:
