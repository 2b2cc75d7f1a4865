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

# Executables take the static archives of SuiteSparse when they are installed (the same Debian
# package ships them): five shared libraries fewer to map and relocate at every start
# (NSSPICE_STATIC_DEPS, top-level CMakeLists.txt). Shared objects (the Python module) keep the
# shared libraries. METIS has no archive in Debian and stays shared.
set(_klu_shared ${KLU_LIBRARY} ${AMD_LIBRARY} ${COLAMD_LIBRARY} ${BTF_LIBRARY}
    ${SUITESPARSECONFIG_LIBRARY})
set(_klu_static)
foreach(_name klu amd colamd btf suitesparseconfig)
  string(TOUPPER ${_name} _upper)
  find_library(${_upper}_STATIC_LIBRARY lib${_name}.a)
  if(${_upper}_STATIC_LIBRARY)
    list(APPEND _klu_static ${${_upper}_STATIC_LIBRARY})
  endif()
endforeach()
list(LENGTH _klu_static _klu_static_count)
if(NSSPICE_STATIC_DEPS AND _klu_static_count EQUAL 5)
  target_link_libraries(KLU::KLU INTERFACE "$<${NSSPICE_STATIC_EXE}:${_klu_static}>"
                        "$<$<NOT:${NSSPICE_STATIC_EXE}>:${_klu_shared}>" ${METIS_LIBRARY} m)
else()
  target_link_libraries(KLU::KLU INTERFACE ${_klu_shared} ${METIS_LIBRARY})
endif()
