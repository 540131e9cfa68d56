#include "wrap_Steps.h"

#include "wrap_AppSteps.h"
#include "wrap_Apps.h"
#include "wrap_Blockers.h"
#include "wrap_Limits.h"
#include "wrap_Navigation.h"
#include "wrap_Step.h"
#include "wrap_Waits.h"

namespace eacu {

int luaopen_eacu_steps(lua_State* L) {
    lua_newtable(L);
    luax_addstep(L);
    luax_addblockers(L);
    luax_addwaits(L);
    luax_addlimits(L);
    luax_addnavigation(L);
    luax_addapps(L);
    luax_addappsteps(L);
    return 1;
}

}  // namespace eacu
