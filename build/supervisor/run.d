build/supervisor/run.o: supervisor/run.c supervisor/forwarded.h \
 supervisor/supervisor.h policy/policy.h
supervisor/forwarded.h:
supervisor/supervisor.h:
policy/policy.h:
