build/policy/glob.o: policy/glob.c policy/internal.h policy/policy.h
policy/internal.h:
policy/policy.h:
