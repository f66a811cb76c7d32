build/supervisor/run.o: supervisor/run.c supervisor/supervisor.h \
 policy/policy.h
supervisor/supervisor.h:
policy/policy.h:
