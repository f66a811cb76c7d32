build/supervisor/plan.o: supervisor/plan.c supervisor/supervisor.h \
 policy/policy.h
supervisor/supervisor.h:
policy/policy.h:
