# One static library per area (a folder of sim/ or models/). Sources are globbed so that a new file in an area needs
# no edit of a shared list; CONFIGURE_DEPENDS re-globs on every build.

function(roofsim_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wno-missing-field-initializers
                                           -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual)
  if(ROOFSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# roofsim_area(NAME <lib> DEPS <libs...>): a library from every .cpp in the current folder.
function(roofsim_area)
  cmake_parse_arguments(AREA "" "NAME" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  if(sources)
    add_library(${AREA_NAME} STATIC ${sources})
    target_include_directories(${AREA_NAME} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${AREA_NAME} PUBLIC ${AREA_DEPS})
    roofsim_warnings(${AREA_NAME})
  else()
    # An area that has only headers so far.
    add_library(${AREA_NAME} INTERFACE)
    target_include_directories(${AREA_NAME} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${AREA_NAME} INTERFACE ${AREA_DEPS})
  endif()
endfunction()
