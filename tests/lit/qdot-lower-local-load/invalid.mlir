// RUN: not qdot-opt %s -p 'qdot-lower-local-load{arch=sm_75}' 2>&1 | filecheck %s
// An arch the pass does not know is a diagnostic naming the ones it does (it was an internal
// error: the enum's ValueError escaped).
// CHECK: qdot-opt: error: qdot-lower-local-load: unknown arch 'sm_75'; expected one of sm_80, sm_86, sm_89, sm_90, sm_90a, sm_120a, sm_120f, sm_121a
// CHECK-NOT: internal error

func.func @f() {
  func.return
}
