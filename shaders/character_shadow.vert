/* character_shadow.vert: the deformed character into the sun's depth map.
 * With STRIDER_GPU_SKIN the positions are bind pose and skinned here, and
 * with STRIDER_GPU_MORPH morphed first (the same position as the lit pass's
 * morph_vertex, so the shadow matches; see character.vert). STRIDER_HYBRID
 * blends the positions of two CPU-skinned keys as character.vert does.
 * STRIDER_CROWD (with STRIDER_GPU_SKIN): the crowd's instanced draw, as in
 * character.vert (the instance's palette maps bind pose to world).
 * STRIDER_CROWD_CPU (with STRIDER_CROWD): the crowd skinned on the CPU, its
 * world positions read from SSBO_CROWD_VERTICES (see character.vert). */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;
#ifdef STRIDER_GPU_MORPH
#include "morph.glsl"
#endif
#ifdef STRIDER_CROWD
layout(location = ATTR_INSTANCE) in uint a_instance;
#define SKIN_PALETTE_BASE (a_instance * uint(u_joint_count) * 3u)
#endif
#ifdef STRIDER_CROWD_CPU
#include "crowd_cpu.glsl"
#endif
#ifdef STRIDER_GPU_SKIN
#include "skin.glsl"
layout(location = ATTR_NORMAL) in vec3 a_normal;
layout(location = ATTR_JOINTS) in uvec4 a_joints;
layout(location = ATTR_WEIGHTS) in vec4 a_weights;
#endif

#ifdef STRIDER_HYBRID
layout(location = ATTR_KEY0_POSITION) in vec3 a_key0_position;
uniform float u_hybrid_t;
#endif

uniform mat4 u_model;

void main()
{
#ifdef STRIDER_GPU_MORPH
    vec3 p = morph_position(gl_VertexID, a_position);
#elif defined(STRIDER_CROWD_CPU)
    vec3 p = crowd_cpu_position(a_instance);
#else
    vec3 p = a_position;
#endif
#ifdef STRIDER_HYBRID
    if (u_hybrid_t < 1.0)
        p = (1.0 - u_hybrid_t) * a_key0_position + u_hybrid_t * p;
#endif
#ifdef STRIDER_GPU_SKIN
    p = skin_vertex(p, a_normal, a_normal, a_joints, a_weights).position;
#endif
#ifdef STRIDER_CROWD
    gl_Position = frame.light_view_proj * vec4(p, 1.0);
#else
    gl_Position = frame.light_view_proj * (u_model * vec4(p, 1.0));
#endif
}
