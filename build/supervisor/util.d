build/supervisor/util.o: supervisor/util.c supervisor/supervisor.h \
 policy/policy.h
supervisor/supervisor.h:
policy/policy.h:
