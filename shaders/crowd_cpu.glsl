/* crowd_cpu.glsl: the crowd's CPU-skinned vertices (gfx_crowd_cpu.c). An
 * instance's vertices start at float offset BASE (its instance attribute)
 * of SSBO_CROWD_VERTICES: u_lod_vertices positions (xyz), then, for an
 * instance drawn in view, as many normals (xyz) and tangents (xyzw), all
 * in the world. The draw's vertex index less u_lod_first (where the level's
 * vertices start in the static buffer) is the vertex's place in each. */
layout(std430, binding = SSBO_CROWD_VERTICES) readonly buffer crowd_vertex_block {
    float crowd_vertices[];
};
uniform int u_lod_first;
uniform int u_lod_vertices;

uint crowd_cpu_index() { return uint(gl_VertexID - u_lod_first); }

vec3 crowd_cpu_position(uint base)
{
    uint p = base + 3u * crowd_cpu_index();
    return vec3(crowd_vertices[p], crowd_vertices[p + 1u], crowd_vertices[p + 2u]);
}

void crowd_cpu_vertex(uint base, out vec3 position, out vec3 normal, out vec4 tangent)
{
    uint v = crowd_cpu_index(), n = uint(u_lod_vertices);
    uint p = base + 3u * v, q = base + 3u * n + 3u * v, t = base + 6u * n + 4u * v;
    position = vec3(crowd_vertices[p], crowd_vertices[p + 1u], crowd_vertices[p + 2u]);
    normal = vec3(crowd_vertices[q], crowd_vertices[q + 1u], crowd_vertices[q + 2u]);
    tangent = vec4(crowd_vertices[t], crowd_vertices[t + 1u], crowd_vertices[t + 2u], crowd_vertices[t + 3u]);
}
