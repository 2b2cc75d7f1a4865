# SuiteSparse KLU (Debian: libsuitesparse-dev puts headers in /usr/include/suitesparse).
find_path(KLU_INCLUDE_DIR klu.h PATH_SUFFIXES suitesparse REQUIRED)
find_library(KLU_LIBRARY klu REQUIRED)
find_library(AMD_LIBRARY amd REQUIRED)
find_library(COLAMD_LIBRARY colamd REQUIRED)
find_library(BTF_LIBRARY btf REQUIRED)
find_library(SUITESPARSECONFIG_LIBRARY suitesparseconfig REQUIRED)
# METIS (Debian: libmetis-dev): nested-dissection orderings for large matrices.
find_path(METIS_INCLUDE_DIR metis.h REQUIRED)
find_library(METIS_LIBRARY metis REQUIRED)
add_library(KLU::KLU INTERFACE IMPORTED)
target_include_directories(KLU::KLU INTERFACE ${KLU_INCLUDE_DIR} ${METIS_INCLUDE_DIR})
target_link_libraries(KLU::KLU INTERFACE ${KLU_LIBRARY} ${AMD_LIBRARY} ${COLAMD_LIBRARY}
                      ${BTF_LIBRARY} ${SUITESPARSECONFIG_LIBRARY} ${METIS_LIBRARY})
